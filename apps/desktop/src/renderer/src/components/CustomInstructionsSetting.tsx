import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CUSTOM_INSTRUCTIONS_MAX, type Settings, type SettingsPatch } from '@threadline/protocol';
import { SettingRow } from './SettingsControls';

/**
 * Settings → custom instructions: the user's instructions for every session, added to the system
 * prompt from the next model call. Saved when the field loses focus.
 */
export function CustomInstructionsSetting({
  settings,
  apply,
}: {
  settings: Settings;
  apply: (p: SettingsPatch) => void;
}) {
  const { t } = useTranslation();
  const value = settings.agent.customInstructions;
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  return (
    <SettingRow label={t('instructions.customLabel')} help={t('instructions.customHelp')} htmlFor="custom-instructions">
      <textarea
        id="custom-instructions"
        className="input custom-instructions-input"
        rows={5}
        value={draft}
        maxLength={CUSTOM_INSTRUCTIONS_MAX}
        placeholder={t('instructions.customPlaceholder')}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={() => draft !== value && apply({ agent: { customInstructions: draft } })}
        data-testid="custom-instructions"
      />
    </SettingRow>
  );
}
