import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { applyLanguage, LANGUAGES, type Language } from '../i18n';

/** English / 简体中文; applies at once and is saved in settings. */
export function LanguageSwitch({ id }: { id?: string }) {
  const { t, i18n } = useTranslation();
  const update = useAppStore((s) => s.updateSettings);
  return (
    <select
      id={id}
      className="select"
      value={i18n.language}
      aria-label={t('settings.general.language')}
      onChange={(e) => {
        const lang = e.target.value as Language;
        applyLanguage(lang);
        void update({ language: lang });
      }}
      data-testid="language-select"
    >
      {LANGUAGES.map((l) => (
        <option key={l} value={l}>
          {t(`settings.general.languages.${l}`)}
        </option>
      ))}
    </select>
  );
}
