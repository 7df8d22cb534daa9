import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { IconLogo } from './Icons';
import { ProviderForm } from './ProviderForm';
import { LanguageSwitch } from './LanguageSwitch';

/** First run: no provider profile yet. */
export function SetupScreen() {
  const { t } = useTranslation();
  const boot = useAppStore((s) => s.boot);
  return (
    <div className="setup" data-testid="setup-screen">
      <div className="setup-card">
        <div className="setup-head">
          <IconLogo className="setup-logo" />
          <div>
            <h1 className="setup-title">{t('setup.title')}</h1>
            <p className="setup-sub">{t('setup.subtitle')}</p>
          </div>
          <span className="spacer" />
          <LanguageSwitch />
        </div>
        <ProviderForm submitLabel={t('setup.start')} onSaved={() => void boot()} />
      </div>
    </div>
  );
}
