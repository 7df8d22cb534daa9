import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Settings, SettingsPatch } from '@threadline/protocol';
import { folderInputError } from './FolderButton';
import { SettingRow } from './SettingsControls';

/** A text setting committed on blur or Enter, checked first; the runtime's refusal shows below. */
function TextSetting({
  id,
  value,
  placeholder,
  check,
  onCommit,
  testId,
}: {
  id: string;
  value: string;
  placeholder: string;
  check: (v: string) => string | null;
  onCommit: (v: string) => void;
  testId: string;
}) {
  const [draft, setDraft] = useState(value);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => setDraft(value), [value]);
  const commit = () => {
    const err = check(draft);
    setError(err);
    if (!err && draft.trim() !== value) onCommit(draft.trim());
  };
  return (
    <div className="text-setting">
      <input
        id={id}
        className={`input mono ${error ? 'invalid' : ''}`}
        value={draft}
        placeholder={placeholder}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={Boolean(error)}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
        data-testid={testId}
      />
      {error && (
        <div className="field-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What the agent may touch: the default working folder and the environment pass-through list. */
export function ReachSettings({ settings, apply }: { settings: Settings; apply: (p: SettingsPatch) => void }) {
  const { t } = useTranslation();
  return (
    <>
      <SettingRow
        label={t('settings.general.defaultFolder')}
        help={t('settings.general.defaultFolderHelp')}
        htmlFor="default-folder"
      >
        <TextSetting
          id="default-folder"
          value={settings.agent.defaultWorkingFolder ?? ''}
          placeholder={t('settings.general.defaultFolderPlaceholder')}
          check={(v) => {
            if (v.trim() === '') return null;
            const e = folderInputError(v);
            return e ? t(`folder.errors.${e}`) : null;
          }}
          onCommit={(v) => apply({ agent: { defaultWorkingFolder: v === '' ? null : v } })}
          testId="default-folder"
        />
      </SettingRow>
      <SettingRow
        label={t('settings.general.envPassthrough')}
        help={t('settings.general.envPassthroughHelp')}
        htmlFor="env-passthrough"
      >
        <TextSetting
          id="env-passthrough"
          value={settings.agent.envPassthrough.join(', ')}
          placeholder={t('settings.general.envPassthroughPlaceholder')}
          check={(v) => {
            const bad = split(v).find((n) => !NAME.test(n));
            return bad ? t('settings.general.envNameError', { name: bad }) : null;
          }}
          onCommit={(v) => apply({ agent: { envPassthrough: split(v) } })}
          testId="env-passthrough"
        />
      </SettingRow>
    </>
  );
}

function split(v: string): string[] {
  return v
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
