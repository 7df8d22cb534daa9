import {
  AppError,
  type AppApi,
  type Checkpoint,
  type CheckpointNoticeMeta,
  type StoredMessage,
} from '@threadline/protocol';
import type { CheckpointService } from '../checkpoints/service';
import { requireSession, type ApiContext } from './apiContext';
import { runSessionWork } from './runSessionWork';

type CheckpointRoutes = Pick<
  AppApi,
  'checkpoints.list' | 'checkpoints.diff' | 'checkpoints.restore' | 'checkpoints.redo'
>;

/** How many file names the model's note lists (the rest are counted). */
const NOTE_FILES_MAX = 30;

export function checkpointRoutes(ctx: ApiContext, svc: CheckpointService): CheckpointRoutes {
  const { store } = ctx.deps;
  /** Undo and redo run as the session's one piece of work: never beside a turn. */
  const change = async (checkpointId: string, to: 'before' | 'after', force: boolean) => {
    const c = svc.get(checkpointId);
    requireSession(ctx, c.sessionId);
    if (ctx.sessions.get(c.sessionId).busy)
      throw new AppError('busy', 'A turn is running in this session; undo or redo its changes after it ends.');
    return runSessionWork(ctx, c.sessionId, async () => {
      const out = await svc.apply(checkpointId, to, force);
      if (!out.applied) return out;
      noteChange(ctx, out.checkpoint, to === 'before' ? 'undo' : 'redo');
      if (to === 'before') markMemory(ctx, out.checkpoint);
      return out;
    });
  };
  return {
    'checkpoints.list': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return { available: await svc.available(), checkpoints: store.checkpoints.list(sessionId) };
    },
    'checkpoints.diff': async ({ checkpointId }) => svc.diff(checkpointId),
    'checkpoints.restore': async ({ checkpointId, force }) => change(checkpointId, 'before', force),
    'checkpoints.redo': async ({ checkpointId, force }) => change(checkpointId, 'after', force),
  };
}

/**
 * History is not touched: the conversation gets a note the user sees and the model reads, so the
 * model knows the files are no longer (or again) as the turn left them.
 */
function noteChange(ctx: ApiContext, c: Checkpoint, action: 'undo' | 'redo'): void {
  const { deps } = ctx;
  const { history } = deps.sessions.get(c.sessionId);
  const turn = turnLabel(history, c.userMessageId);
  const listed = c.files.slice(0, NOTE_FILES_MAX).map((f) => {
    if (action === 'undo')
      return `${f.path} (${f.status === 'added' ? 'removed again' : f.status === 'deleted' ? 'restored' : 'reverted'})`;
    return `${f.path} (${f.status === 'added' ? 'created again' : f.status === 'deleted' ? 'deleted again' : 'changed again'})`;
  });
  const more = c.files.length > NOTE_FILES_MAX ? ` and ${c.files.length - NOTE_FILES_MAX} more` : '';
  const content =
    action === 'undo'
      ? `The user undid the file changes of ${turn}: ${listed.join(', ')}${more}. Those files are now as they were before that turn; do not assume its changes are still there.`
      : `The user redid the file changes of ${turn}: ${listed.join(', ')}${more}. Those files are again as that turn left them.`;
  const meta: CheckpointNoticeMeta = { action, checkpointId: c.id, files: c.files.map((f) => f.path) };
  const [message] = deps.sessions.append(c.sessionId, [
    { role: 'user', content, kind: 'checkpoint_notice', visibility: { user: true, agent: true }, meta },
  ]);
  deps.emit({ type: 'notice', sessionId: c.sessionId, message });
}

/** `turn N ("the request…")`, counted on the shown branch; "an earlier turn" when it is not on it. */
function turnLabel(history: readonly StoredMessage[], userMessageId: string | null): string {
  let n = 0;
  for (const m of history) {
    if (m.role !== 'user' || m.kind !== 'normal') continue;
    n++;
    if (m.id === userMessageId) {
      const text = (m.content ?? '').replace(/\s+/g, ' ').trim();
      return `turn ${n} ("${text.length > 80 ? `${text.slice(0, 80)}…` : text}")`;
    }
  }
  return 'an earlier turn';
}

/**
 * CFPM (minimal): facts the engine learned about the undone files (an artifact or a verified
 * action naming one of them) are marked stale, so memory stops presenting them as current.
 */
function markMemory(ctx: ApiContext, c: Checkpoint): void {
  const { deps } = ctx;
  const { facts } = deps.sessions.get(c.sessionId);
  for (const f of facts) {
    if (f.source !== 'cfpm_auto' || f.status !== 'active' || f.pinned) continue;
    if (f.category !== 'artifact' && f.category !== 'verified_action') continue;
    if (!c.files.some((file) => f.content.includes(file.path))) continue;
    try {
      deps.sessions.setFactStatus(f.id, 'stale');
    } catch {
      // A fact gone meanwhile: nothing to mark.
    }
  }
}
