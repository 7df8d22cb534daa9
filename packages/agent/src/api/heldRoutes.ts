import { VISIBLE_TO_ALL, type AppApi, type CheckpointNoticeMeta, type HeldFile } from '@threadline/protocol';
import type { HeldFiles } from '../sandbox/heldFiles';
import { requireSession, type ApiContext } from './apiContext';

type HeldRoutes = Pick<AppApi, 'held.list' | 'held.resolve'>;

/** How many paths the model's note names (the rest are counted). */
const NOTE_FILES_MAX = 30;

/** Held files (issue 34): the card's list, and the user's Keep or Discard. */
export function heldRoutes(ctx: ApiContext, held: HeldFiles): HeldRoutes {
  return {
    'held.list': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return { files: held.list(sessionId) };
    },
    'held.resolve': async ({ sessionId, decision, ids }) => {
      requireSession(ctx, sessionId);
      const out = await held.resolve(sessionId, decision, ids);
      if (out.done.length > 0) noteResolved(ctx, sessionId, decision, out.done);
      return { ...out, files: held.list(sessionId) };
    },
  };
}

/** The model reads what the user decided (history is appended to, never changed). */
function noteResolved(ctx: ApiContext, sessionId: string, decision: 'keep' | 'discard', files: HeldFile[]): void {
  const listed = files
    .slice(0, NOTE_FILES_MAX)
    .map((f) => f.path)
    .join(', ');
  const more = files.length > NOTE_FILES_MAX ? ` and ${files.length - NOTE_FILES_MAX} more` : '';
  const content =
    decision === 'keep'
      ? `The user kept files a command had left that were held: ${listed}${more}. They are in the folder again.`
      : `The user discarded files a command had left that were held: ${listed}${more}. They are gone; do not create them again unless the user asks.`;
  const meta: CheckpointNoticeMeta = {
    action: decision === 'keep' ? 'kept' : 'discarded',
    files: files.map((f) => f.path),
  };
  const [message] = ctx.deps.sessions.append(sessionId, [
    { role: 'user', content, kind: 'checkpoint_notice', visibility: VISIBLE_TO_ALL, meta },
  ]);
  ctx.deps.emit({ type: 'notice', sessionId, message });
}
