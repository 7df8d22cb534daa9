import { Fragment, useRef, useState } from 'react';
import { useDismiss } from '../hooks/useDismiss';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { call } from '../transport';
import { IconDownload } from './Icons';
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

/** Exports a session (a helper's too) and saves the file; throws what the runtime refused. */
export async function saveExport(
  id: string,
  format: 'markdown' | 'json',
  branches: 'active' | 'all' = 'active',
): Promise<void> {
  const file = await call('sessions.export', { id, format, branches });
  download(file.filename, file.mime, file.content);
}

/** The menu's entries: the branch shown, then every version (after a separator). */
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

/** "Export" in the chat header: the branch shown (hidden messages included), or every version, as Markdown or JSON. */
export function ExportMenu({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const showToast = useAppStore((s) => s.showToast);
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  useDismiss(open, ref, () => setOpen(false));

  const run = async (format: 'markdown' | 'json', branches: 'active' | 'all' = 'active') => {
    setOpen(false);
    try {
      await saveExport(sessionId, format, branches);
    } catch (err) {
      showToast(t('export.failed', { message: errorMessage(err) }));
    }
  };

  return (
    <div className="split-btn" ref={ref}>
      <button
        type="button"
        className="btn btn-ghost"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid="export-menu"
        title={t('export.button')}
      >
        <IconDownload />
        <span className="btn-label">{t('export.button')}</span>
      </button>
      {open && (
        <div className="menu menu-down" role="menu">
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
      )}
    </div>
  );
}
