import type { SessionSummary } from '@threadline/protocol';
import { Turn } from '../turn/turn';
import { activeProvider, currentSettings, type ApiContext } from './apiContext';

/**
 * The turn of a chat message (chat.send, an edit): the session row, the settings and the
 * session's profile and client, read once; the caller has checked the session is not busy.
 */
export function startTurn(ctx: ApiContext, session: SessionSummary, signal: AbortSignal): Turn {
  const { profile, client } = activeProvider(ctx, session.id, session);
  return new Turn({ deps: ctx.deps, session, settings: currentSettings(ctx), profile, client, signal });
}
