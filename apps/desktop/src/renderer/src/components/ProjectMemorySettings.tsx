import { useTranslation } from 'react-i18next';
import { SettingRow, Toggle } from './SettingsControls';
import { SettingField, type SettingsPartProps } from './form/SettingField';

/** Settings → Context → Project memory: on or off, verified facts without the inbox, a command's age, the block's budget. */
export function ProjectMemorySettings(part: SettingsPartProps) {
  const { t } = useTranslation();
  const { settings, apply } = part;
  const pm = settings.projectMemory;
  return (
    <>
      <h3 className="settings-h">{t('settings.context.project.heading')}</h3>
      <SettingRow label={t('settings.context.project.enabled')} help={t('settings.context.project.enabledHelp')}>
        <Toggle
          label={t('settings.context.project.enabled')}
          checked={pm.enabled}
          onChange={(enabled) => apply({ projectMemory: { enabled } })}
          testId="project-memory-enabled"
        />
      </SettingRow>
      <SettingRow label={t('settings.context.project.autoAccept')} help={t('settings.context.project.autoAcceptHelp')}>
        <Toggle
          label={t('settings.context.project.autoAccept')}
          checked={pm.autoAccept}
          onChange={(autoAccept) => apply({ projectMemory: { autoAccept } })}
          testId="project-memory-auto-accept"
        />
      </SettingRow>
      <SettingField
        name="projectCommandTtlDays"
        {...part}
        label={t('settings.context.project.ttl')}
        help={t('settings.context.project.ttlHelp')}
        suffix={t('settings.context.project.daysSuffix')}
        testId="project-ttl-input"
      />
      <SettingField
        name="projectMaxTokens"
        {...part}
        label={t('settings.context.project.budget')}
        help={t('settings.context.project.budgetHelp')}
        suffix={t('settings.context.tokensSuffix')}
        testId="project-budget-input"
      />
    </>
  );
}
