import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SessionInstructions } from '@threadline/protocol';
import { instructionRoutes } from '../store/routes';
import { useAppStore } from '../store';
import { Dialog } from './Dialog';
import { IconFile, IconPencil } from './Icons';
import { errorMessage } from '@threadline/protocol';

/**
 * The instructions in force for the session, in the chat header: a chip naming the project's
 * instruction file (AGENTS.md…) that opens its text, and the session's own system prompt,
 * editable. Asked again when a turn ends (the agent may have written the file) or the folder changes.
 */
export function InstructionsChip({ sessionId, folder }: { sessionId: string; folder: string }) {
  const { t } = useTranslation();
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const [info, setInfo] = useState<SessionInstructions | null>(null);
  const [dialog, setDialog] = useState<'file' | 'session' | null>(null);
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const load = useCallback(async () => {
    try {
      setInfo(await instructionRoutes.get({ sessionId }));
    } catch {
      setInfo(null); // the chip is a convenience; the system prompt does not depend on it
    }
  }, [sessionId]);
  // Again when the session moves to another folder, and when a turn ends.
  useEffect(() => {
    if (!busy) void load();
  }, [busy, load, folder]);

  const save = async (text: string | null) => {
    setSaving(true);
    try {
      setInfo(await instructionRoutes.setSession({ sessionId, systemPrompt: text }));
      setDialog(null);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  const project = info?.project ?? null;
  const own = info?.session ?? null;
  return (
    <>
      {project && (
        <button
          type="button"
          className="btn btn-ghost instructions-chip"
          title={t('instructions.fileHint', { path: project.path })}
          aria-label={t('instructions.fileHint', { path: project.path })}
          onClick={() => setDialog('file')}
          data-testid="instructions-chip"
        >
          <IconFile />
          <span className="instructions-name">{project.name}</span>
        </button>
      )}
      <button
        type="button"
        className={`btn btn-ghost instructions-session ${own ? 'is-on' : ''}`}
        title={t(own ? 'instructions.sessionHintSet' : 'instructions.sessionHint')}
        aria-label={t('instructions.sessionButton')}
        onClick={() => {
          setDraft(own ?? '');
          setError(null);
          setDialog('session');
        }}
        data-testid="session-prompt-button"
      >
        {/* Icon only: the header is crowded; the title and the label name it, the dot says it is set. */}
        <IconPencil />
        {own && <span className="instructions-dot" aria-hidden="true" />}
      </button>
      {dialog === 'file' && project && (
        <Dialog
          title={t('instructions.fileTitle', { name: project.name })}
          onClose={() => setDialog(null)}
          testId="instructions-dialog"
          footer={
            <button type="button" className="btn btn-primary" onClick={() => setDialog(null)}>
              {t('common.close')}
            </button>
          }
        >
          <p className="muted">{t('instructions.fileBody')}</p>
          <code className="instructions-path">{project.path}</code>
          <pre className="tool-pre instructions-text" data-testid="instructions-text">
            {project.text}
          </pre>
          {project.capped && <p className="muted">{t('instructions.capped')}</p>}
        </Dialog>
      )}
      {dialog === 'session' && (
        <Dialog
          title={t('instructions.sessionTitle')}
          onClose={() => setDialog(null)}
          testId="session-prompt-dialog"
          footer={
            <>
              {own && (
                <button type="button" className="btn" disabled={saving} onClick={() => void save(null)}>
                  {t('instructions.clear')}
                </button>
              )}
              <span className="spacer" />
              <button type="button" className="btn" onClick={() => setDialog(null)}>
                {t('common.cancel')}
              </button>
              <button
                type="button"
                className="btn btn-primary"
                disabled={saving}
                onClick={() => void save(draft)}
                data-testid="session-prompt-save"
              >
                {t('common.save')}
              </button>
            </>
          }
        >
          <p className="muted">{t('instructions.sessionBody')}</p>
          <textarea
            className="input instructions-input"
            rows={8}
            value={draft}
            maxLength={20_000}
            aria-label={t('instructions.sessionTitle')}
            onChange={(e) => {
              setDraft(e.target.value);
              setError(null);
            }}
            data-autofocus
            data-testid="session-prompt-input"
          />
          {error && (
            <div className="field-error" role="alert">
              {error}
            </div>
          )}
        </Dialog>
      )}
    </>
  );
}
