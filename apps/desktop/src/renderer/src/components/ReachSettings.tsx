import { useTranslation } from 'react-i18next';
import { SettingField, type SettingsPartProps } from './form/SettingField';

/** What the agent may touch: the default working folder and the environment pass-through list. */
export function ReachSettings(part: SettingsPartProps) {
  const { t } = useTranslation();
  return (
    <>
      <SettingField
        name="defaultWorkingFolder"
        {...part}
        label={t('settings.general.defaultFolder')}
        help={t('settings.general.defaultFolderHelp')}
        placeholder={t('settings.general.defaultFolderPlaceholder')}
        testId="default-folder"
      />
      <SettingField
        name="envPassthrough"
        {...part}
        label={t('settings.general.envPassthrough')}
        help={t('settings.general.envPassthroughHelp')}
        placeholder={t('settings.general.envPassthroughPlaceholder')}
        testId="env-passthrough"
      />
    </>
  );
}
