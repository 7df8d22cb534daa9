import { AppError, DEFAULT_SETTINGS } from '@threadline/protocol';
import { Turn } from '../turn/turn';
import { loadTurnRows, sessionProfile, type ApiContext } from './apiContext';

/**
 * The turn of a chat message (chat.send, an edit): the session row, the settings, the session's
 * profile and its client and its small rows, read once (store.turns.load); the
 * caller has checked the session is not busy.
 */
export function startTurn(ctx: ApiContext, sessionId: string, signal: AbortSignal): Turn {
  const rows = loadTurnRows(ctx, sessionId, { secret: true });
  const profile = sessionProfile(rows);
  if (!profile) throw new AppError('conflict', 'No provider is configured. Add one in Settings → Providers.');
  const client = ctx.providerFactory(profile, rows.secret);
  return new Turn({ deps: ctx.deps, rows, settings: rows.settings ?? DEFAULT_SETTINGS, profile, client, signal });
}
