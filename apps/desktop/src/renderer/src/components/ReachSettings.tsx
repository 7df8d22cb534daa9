import { useTranslation } from 'react-i18next';
import { SettingField, type SettingsPartProps } from './form/SettingField';

/**
 * What the agent may touch: the default working folder, the environment pass-through list, and
 * what sandboxed commands may read of the home folder and reach on the network.
 */
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
      <SettingField
        name="sandboxHomeFolders"
        {...part}
        label={t('settings.sandbox.homeFolders')}
        help={t('settings.sandbox.homeFoldersHelp')}
        placeholder={t('settings.sandbox.homeFoldersPlaceholder')}
        testId="sandbox-home-folders"
      />
      <SettingField
        name="sandboxNetworkDomains"
        {...part}
        label={t('settings.sandbox.networkDomains')}
        help={t('settings.sandbox.networkDomainsHelp')}
        placeholder={t('settings.sandbox.networkDomainsPlaceholder')}
        multiline
        testId="sandbox-network-domains"
      />
    </>
  );
}
