import { useRef, useState } from 'react';
import { useDismiss } from '../hooks/useDismiss';
import { useTranslation } from 'react-i18next';
import { useAppStore } from '../store';
import { call } from '../transport';
import { IconDownload } from './Icons';

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
      const file = await call('sessions.export', { id: sessionId, format, branches });
      download(file.filename, file.mime, file.content);
    } catch (err) {
      showToast(t('export.failed', { message: err instanceof Error ? err.message : String(err) }));
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
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => void run('markdown')}
            data-testid="export-markdown"
          >
            {t('export.markdown')}
          </button>
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => void run('json')}
            data-testid="export-json"
          >
            {t('export.json')}
          </button>
          <div className="menu-sep" role="separator" />
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => void run('markdown', 'all')}
            data-testid="export-all-markdown"
          >
            {t('export.allMarkdown')}
          </button>
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => void run('json', 'all')}
            data-testid="export-all-json"
          >
            {t('export.allJson')}
          </button>
        </div>
      )}
    </div>
  );
}
