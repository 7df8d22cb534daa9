import { useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import type { Checkpoint, CheckpointFileDiff } from '@threadline/protocol';
import { checkpointRoutes } from '../store/routes';
import { useAppStore } from '../store';
import { Dialog } from './Dialog';
import { IconChevron, IconPencil, IconUndo } from './Icons';

type DiffState = { status: 'idle' | 'loading' | 'error' } | { status: 'ready'; files: CheckpointFileDiff[] };

/** A unified diff's lines, coloured by kind; git's own header lines are left out (the file row says it). */
function PatchLines({ patch }: { patch: string }) {
  const lines = patch.split('\n');
  const body = lines.slice(
    Math.max(
      0,
      lines.findIndex((l) => l.startsWith('@@')),
    ),
  );
  return (
    <pre className="cp-diff-lines" data-testid="checkpoint-patch">
      {body.map((l, i) => {
        if (l === '' && i === body.length - 1) return null;
        const kind = l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : 'ctx';
        return (
          <span key={i} className={`cp-diff-line cp-diff-${kind}`}>
            {l === '' ? ' ' : l}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}

function FileDiff({ file }: { file: CheckpointFileDiff }) {
  const { t } = useTranslation();
  return (
    <div className="cp-diff-file" data-testid="checkpoint-file">
      <div className="cp-diff-file-head">
        <span className={`cp-diff-status cp-diff-status-${file.status}`}>{t(`checkpoints.status.${file.status}`)}</span>
        <span className="cp-diff-path">{file.path}</span>
        {file.added !== null && <span className="cp-diff-count-add">+{file.added}</span>}
        {file.removed !== null && <span className="cp-diff-count-del">−{file.removed}</span>}
      </div>
      {file.binary ? (
        <p className="cp-diff-note">{t('checkpoints.binary')}</p>
      ) : file.patch.includes('@@') ? (
        <PatchLines patch={file.patch} />
      ) : (
        <p className="cp-diff-note">{t('checkpoints.empty')}</p>
      )}
      {file.truncated && <p className="cp-diff-note">{t('checkpoints.truncated')}</p>}
    </div>
  );
}

const mib = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;

/** "N files changed" at the end of a turn: its diff, Undo changes, Redo. */
export function CheckpointRow({ checkpoint: c, sessionId }: { checkpoint: Checkpoint; sessionId: string }) {
  const { t } = useTranslation();
  const busy = useAppStore((s) => Boolean(s.bySession[sessionId]?.busy));
  const changing = useAppStore((s) => Boolean(s.checkpointBusy[c.id]));
  const change = useAppStore((s) => s.changeCheckpoint);
  const [open, setOpen] = useState(false);
  /** Files changed since the turn: the user is asked before they are overwritten. */
  const [changedSince, setChangedSince] = useState<string[]>([]);
  const [diff, setDiff] = useState<DiffState>({ status: 'idle' });
  const added = c.files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = c.files.reduce((n, f) => n + (f.removed ?? 0), 0);
  const undone = c.state === 'undone';
  /** Its changes are no longer (all) in the files: an undo or redo of another turn wrote over them. */
  const overwritten = c.state === 'overwritten';
  const redo = undone || overwritten;
  const toggle = async () => {
    setOpen(!open);
    if (open || diff.status === 'ready' || diff.status === 'loading') return;
    setDiff({ status: 'loading' });
    try {
      setDiff({ status: 'ready', files: (await checkpointRoutes.diff({ checkpointId: c.id })).files });
    } catch {
      setDiff({ status: 'error' });
    }
  };
  const { tooLarge, overBudget, nestedRepos } = c.skipped;
  return (
    <div className={`checkpoint ${undone ? 'is-undone' : ''}`} data-testid="checkpoint" data-state={c.state}>
      <div className="checkpoint-bar">
        <IconPencil />
        <span className="checkpoint-title" data-testid="checkpoint-title">
          {t('checkpoints.filesChanged', { count: c.filesChanged })}
        </span>
        <span className="cp-diff-count-add">+{added}</span>
        <span className="cp-diff-count-del">−{removed}</span>
        {undone && <span className="checkpoint-state">{t('checkpoints.undoneLabel')}</span>}
        {overwritten && (
          <span className="checkpoint-state" data-testid="checkpoint-overwritten">
            {t('checkpoints.overwrittenLabel')}
          </span>
        )}
        <span className="checkpoint-actions">
          <button
            type="button"
            className="chip-toggle"
            aria-expanded={open}
            onClick={() => void toggle()}
            data-testid="checkpoint-diff-toggle"
          >
            <IconChevron className={`chev ${open ? 'open' : ''}`} />
            {open ? t('checkpoints.hideDiff') : t('checkpoints.showDiff')}
          </button>
          <button
            type="button"
            className="btn btn-small"
            disabled={busy || changing}
            title={busy ? t('checkpoints.busy') : undefined}
            onClick={() => void change(c, redo ? 'redo' : 'restore').then(setChangedSince)}
            data-testid={redo ? 'checkpoint-redo' : 'checkpoint-undo'}
          >
            <IconUndo className={redo ? 'icon-flip' : undefined} />
            {redo ? t('checkpoints.redo') : t('checkpoints.undo')}
          </button>
        </span>
      </div>
      {overwritten && <p className="checkpoint-skipped">{t('checkpoints.overwrittenHint')}</p>}
      {(tooLarge.length > 0 || overBudget > 0 || nestedRepos.length > 0) && (
        <p className="checkpoint-skipped" data-testid="checkpoint-skipped">
          {tooLarge.length > 0 &&
            t('checkpoints.skipped.tooLarge', { files: tooLarge.join(', '), size: mib(c.skipped.maxFileBytes) })}
          {overBudget > 0 && ` ${t('checkpoints.skipped.overBudget', { count: overBudget })}`}
          {nestedRepos.length > 0 && ` ${t('checkpoints.skipped.nestedRepos', { folders: nestedRepos.join(', ') })}`}
        </p>
      )}
      {changedSince.length > 0 &&
        // Out of the virtual list's transformed row, so the modal covers the window.
        createPortal(
          <Dialog
            title={redo ? t('checkpoints.changedSince.redoTitle') : t('checkpoints.changedSince.undoTitle')}
            onClose={() => setChangedSince([])}
            testId="checkpoint-confirm"
            footer={
              <>
                <button type="button" className="btn" onClick={() => setChangedSince([])}>
                  {t('common.cancel')}
                </button>
                <button
                  type="button"
                  className="btn btn-danger"
                  data-testid="checkpoint-force"
                  onClick={() => {
                    setChangedSince([]);
                    void change(c, redo ? 'redo' : 'restore', true);
                  }}
                >
                  {redo ? t('checkpoints.changedSince.redoAnyway') : t('checkpoints.changedSince.undoAnyway')}
                </button>
              </>
            }
          >
            <p>{t('checkpoints.changedSince.body', { count: changedSince.length })}</p>
            <ul className="checkpoint-changed-list">
              {changedSince.map((p) => (
                <li key={p}>
                  <code>{p}</code>
                </li>
              ))}
            </ul>
          </Dialog>,
          document.body,
        )}
      {open && (
        <div className="checkpoint-diff" data-testid="checkpoint-diff">
          {diff.status === 'loading' && <p className="cp-diff-note">{t('checkpoints.loading')}</p>}
          {diff.status === 'error' && <p className="cp-diff-note">{t('checkpoints.loadError')}</p>}
          {diff.status === 'ready' && diff.files.map((f) => <FileDiff key={f.path} file={f} />)}
        </div>
      )}
    </div>
  );
}
