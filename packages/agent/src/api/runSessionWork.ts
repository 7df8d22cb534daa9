import type { SessionSummary, Settings } from '@threadline/protocol';
import { emitSession } from '../turn/turn';
import { currentSettings, type ApiContext } from './apiContext';

/**
 * Runs the session's one piece of work (a turn, or a manual compaction): busy while it runs and
 * announced to every renderer, cancellable by chat.cancel (its controller), waited for by
 * sessions.delete and dispose (its promise); all of it cleared, and announced, when it ends.
 * The caller has checked that the session is not busy.
 */
export function runSessionWork<T>(
  ctx: ApiContext,
  sessionId: string,
  work: (signal: AbortSignal) => Promise<T>,
  /** The work's controller, when the caller built what it runs with its signal already (a chat turn). */
  abort: AbortController = new AbortController(),
  /** The settings the work runs with (a chat turn's), else read now. */
  settings?: Settings,
  /** The session's row as the caller has just written it (a chat turn's user message), else read now. */
  row?: SessionSummary,
): Promise<T> {
  const rt = ctx.sessions.get(sessionId);
  const shown = settings ?? currentSettings(ctx);
  rt.workStarted(abort);
  emitSession(ctx.deps, sessionId, shown, row);
  const done = (async () => {
    try {
      return await work(abort.signal);
    } finally {
      // The row as the work last stored it (or a route changed it meanwhile); null: read it now.
      const last = rt.workEnded();
      try {
        emitSession(ctx.deps, sessionId, shown, last ?? undefined);
      } catch {
        // The session may have been deleted meanwhile.
      }
    }
  })();
  rt.workRuns(
    done.then(
      () => undefined,
      () => undefined,
    ),
  );
  return done;
}
