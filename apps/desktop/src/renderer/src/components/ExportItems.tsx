import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import i18n from '../i18n';
import { useAppStore } from '../store';
import { sessionRoutes } from '../store/routes';
import { errorMessage } from '@threadline/protocol';

/** Saves a file the user asked for (the desktop app shows its save dialog for a download). */
export function download(filename: string, mime: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Exports a session and saves the file: the branch shown or every version, its notices in the
 * language the user reads. The one way Export and `/export` save a session.
 */
export async function saveExport(
  sessionId: string,
  format: 'markdown' | 'json',
  branches: 'active' | 'all' = 'active',
): Promise<void> {
  const language = i18n.language === 'zh-CN' ? 'zh-CN' : 'en';
  const file = await sessionRoutes.export({ id: sessionId, format, branches, language });
  download(file.filename, file.mime, file.content);
}

/** The entries: the branch shown, then every version (after a separator). */
const EXPORTS: ReadonlyArray<{
  format: 'markdown' | 'json';
  branches: 'active' | 'all';
  label: 'export.markdown' | 'export.json' | 'export.allMarkdown' | 'export.allJson';
  testId: string;
  separatorBefore?: boolean;
}> = [
  { format: 'markdown', branches: 'active', label: 'export.markdown', testId: 'export-markdown' },
  { format: 'json', branches: 'active', label: 'export.json', testId: 'export-json' },
  {
    format: 'markdown',
    branches: 'all',
    label: 'export.allMarkdown',
    testId: 'export-all-markdown',
    separatorBefore: true,
  },
  { format: 'json', branches: 'all', label: 'export.allJson', testId: 'export-all-json' },
];

/**
 * Export, as entries of the header's More menu: the branch shown (hidden messages included), or
 * every version, as Markdown or JSON.
 */
export function ExportItems({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const showToast = useAppStore((s) => s.showToast);

  const run = async (format: 'markdown' | 'json', branches: 'active' | 'all') => {
    try {
      await saveExport(sessionId, format, branches);
    } catch (err) {
      showToast(t('export.failed', { message: errorMessage(err) }));
    }
  };

  return (
    <div role="group" aria-label={t('export.button')}>
      {EXPORTS.map((e) => (
        <Fragment key={e.testId}>
          {e.separatorBefore && <div className="menu-sep" role="separator" />}
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => void run(e.format, e.branches)}
            data-testid={e.testId}
          >
            {t(e.label)}
          </button>
        </Fragment>
      ))}
    </div>
  );
}
