import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';

/** The way to the fix of a provider error: Settings, on the provider profiles. */
export function ProfileLink() {
  const { t } = useTranslation();
  const openSettings = useAppStore((s) => s.openSettings);
  return (
    <button type="button" className="link-btn" onClick={() => openSettings('providers')} data-testid="open-profile">
      {t('chat.error.openProfile')}
    </button>
  );
}
