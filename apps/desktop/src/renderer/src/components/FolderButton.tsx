import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RpcError } from '../transport';
import { sessionRoutes } from '../store/routes';
import { useAppStore } from '../store';
import { Dialog } from './Dialog';
import { IconFolder } from './Icons';
import { errorMessage } from '@threadline/protocol';
import { folderSentence } from '../lib/settingsForm';

/**
 * The session's working folder in the chat header: file tools run there without asking, and
 * the shell starts there. A click opens a field to move the session to another folder.
 */
export function FolderButton({ sessionId, folder }: { sessionId: string; folder: string }) {
  const { t } = useTranslation();
  const upsert = useAppStore((s) => s.upsertSession);
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState(folder);
  const [error, setError] = useState<string | null>(null);
  /** The folder typed does not exist: said, with a button to create it (never created silently). */
  const [missing, setMissing] = useState(false);
  const [saving, setSaving] = useState(false);

  const save = async (createFolder = false) => {
    const refused = folderSentence(t, value);
    if (refused) return setError(refused);
    setSaving(true);
    try {
      upsert(
        await sessionRoutes.update({
          id: sessionId,
          workingFolder: value.trim(),
          ...(createFolder ? { createFolder } : {}),
        }),
      );
      setOpen(false);
    } catch (err) {
      const notFound = err instanceof RpcError && err.code === 'not_found';
      setMissing(notFound);
      setError(notFound ? t('folder.errors.missing') : errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <button
        type="button"
        className="btn btn-ghost folder-btn"
        title={t('folder.hint', { folder })}
        aria-label={t('folder.label', { folder })}
        onClick={() => {
          setValue(folder);
          setError(null);
          setMissing(false);
          setOpen(true);
        }}
        data-testid="folder-button"
      >
        <IconFolder />
        <span className="folder-path" dir="rtl">
          {/* rtl + bdi: a long path is cut at its start, so the folder's own name stays visible */}
          <bdi>{folder}</bdi>
        </span>
      </button>
      {open && (
        <Dialog
          title={t('folder.dialogTitle')}
          onClose={() => setOpen(false)}
          testId="folder-dialog"
          footer={
            <>
              <button type="button" className="btn" onClick={() => setOpen(false)}>
                {t('common.cancel')}
              </button>
              <button
                type="submit"
                form="folder-form"
                className="btn btn-primary"
                disabled={saving}
                data-testid="folder-save"
              >
                {t('folder.save')}
              </button>
            </>
          }
        >
          <form
            id="folder-form"
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            <p className="muted">{t('folder.dialogHint')}</p>
            <input
              className="input mono"
              value={value}
              spellCheck={false}
              autoComplete="off"
              aria-label={t('folder.field')}
              aria-invalid={error !== null}
              aria-describedby={error ? 'folder-error' : undefined}
              onChange={(e) => {
                setValue(e.target.value);
                setError(null);
                setMissing(false);
              }}
              data-autofocus
              data-testid="folder-input"
            />
            {error && (
              <div className="field-error" id="folder-error" role="alert" data-testid="folder-error">
                {error}
                {missing && (
                  <button
                    type="button"
                    className="btn btn-small"
                    disabled={saving}
                    onClick={() => void save(true)}
                    data-testid="folder-create"
                  >
                    {t('folder.create')}
                  </button>
                )}
              </div>
            )}
          </form>
        </Dialog>
      )}
    </>
  );
}
