import { AppError, DEFAULT_SETTINGS } from '@threadline/protocol';
import { runHelpers } from '../helpers/runHelpers';
import { Turn } from '../turn/turn';
import { loadTurnRows, sessionProfile, type ApiContext } from './apiContext';

/**
 * The turn of a chat message (chat.send, an edit): the session row, the settings, the session's
 * profile and its client and its small rows, read once (store.turns.load); the
 * caller has checked the session is not busy.
 */
export function startTurn(ctx: ApiContext, sessionId: string, signal: AbortSignal): Turn {
  const rows = loadTurnRows(ctx, sessionId, { secret: true });
  // A helper's session is its parent's work: it is not a chat to continue.
  if (rows.session.parentId !== undefined)
    throw new AppError('invalid_input', "A helper's conversation cannot be continued: write in its session instead.");
  const profile = sessionProfile(rows);
  if (!profile) throw new AppError('conflict', 'No provider is configured. Add one in Settings → Providers.');
  const client = ctx.providerFactory(profile, rows.secret);
  const turn = new Turn({ deps: ctx.deps, rows, settings: rows.settings ?? DEFAULT_SETTINGS, profile, client, signal });
  // Its delegate calls run helpers; one whose model is not the session's gets a client of its own.
  turn.delegate = (toolCallId, args) => runHelpers(turn, toolCallId, args, (p) => ctx.providerFactory(p, rows.secret));
  return turn;
}
