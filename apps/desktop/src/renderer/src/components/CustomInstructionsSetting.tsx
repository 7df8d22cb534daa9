import { useTranslation } from 'react-i18next';
import { CUSTOM_INSTRUCTIONS_MAX } from '@threadline/protocol';
import { SettingField, type SettingsPartProps } from './form/SettingField';

/**
 * Settings → custom instructions: the user's instructions for every session, added to the system
 * prompt from the next model call. Saved when the field loses focus.
 */
export function CustomInstructionsSetting(part: SettingsPartProps) {
  const { t } = useTranslation();
  return (
    <SettingField
      name="customInstructions"
      multiline
      maxLength={CUSTOM_INSTRUCTIONS_MAX}
      {...part}
      label={t('instructions.customLabel')}
      help={t('instructions.customHelp')}
      placeholder={t('instructions.customPlaceholder')}
      testId="custom-instructions"
    />
  );
}
