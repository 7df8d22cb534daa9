import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { applyLanguage, LANGUAGES, systemLanguage, type Language } from '../i18n';

const SYSTEM = 'system';

/**
 * The system's language (until one is picked), English or 简体中文; applies at once and is saved
 * in settings (null for the system's).
 */
export function LanguageSwitch({ id }: { id?: string }) {
  const { t } = useTranslation();
  const update = useAppStore((s) => s.updateSettings);
  const chosen = useAppStore((s) => s.settings?.language ?? null);
  return (
    <select
      id={id}
      className="select"
      value={chosen ?? SYSTEM}
      aria-label={t('settings.general.language')}
      onChange={(e) => {
        const lang = e.target.value === SYSTEM ? null : (e.target.value as Language);
        applyLanguage(lang ?? systemLanguage());
        void update({ language: lang });
      }}
      data-testid="language-select"
    >
      <option value={SYSTEM}>
        {t('settings.general.languageSystem', { language: t(`settings.general.languages.${systemLanguage()}`) })}
      </option>
      {LANGUAGES.map((l) => (
        <option key={l} value={l}>
          {t(`settings.general.languages.${l}`)}
        </option>
      ))}
    </select>
  );
}
