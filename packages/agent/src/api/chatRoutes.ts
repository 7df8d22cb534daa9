import { AppError, type AppApi } from '@threadline/protocol';
import { prepareAttachments } from '../attachments';
import { userRequest } from '../turn/manualCompaction';
import { acceptUserMessage } from '../turn/acceptUserMessage';
import { runTurn } from '../turn/runTurn';
import type { Turn } from '../turn/turn';
import { emitCost, recordCall } from '../turn/cost';
import { askTitle, firstExchange, isAutoTitle } from '../session/title';
import { emitSession, requireSession, type ApiContext } from './apiContext';
import { rememberRules } from './rulesRoutes';
import { runSessionWork } from './runSessionWork';
import { startTurn } from './startTurn';

type ChatRoutes = Pick<AppApi, 'chat.send' | 'chat.cancel' | 'chat.approve' | 'chat.state'>;

/** renderer send → … → AppApi.send: append the user message, return, run the turn in the background. */
export function chatRoutes(ctx: ApiContext): ChatRoutes {
  // Sessions whose user message is being prepared (a long paste is counted in slices first).
  const appending = new Set<string>();
  return {
    'chat.send': async ({ sessionId, text, attachments }) => {
      // (A session that does not exist is never busy: startTurn says it is not found.)
      if (ctx.sessions.busy(sessionId) || appending.has(sessionId))
        throw new AppError('busy', 'A turn is already running in this session; wait for it or cancel it.');
      // The turn, once: what all its steps read (turn/turn.ts), in one read of the store.
      const abort = new AbortController();
      const turn = startTurn(ctx, sessionId, abort.signal);
      const files = attachments?.length ? prepareAttachments(ctx.deps.store, attachments) : undefined;
      const request = userRequest(text);
      appending.add(sessionId);
      let user;
      try {
        user = await acceptUserMessage(turn, request, undefined, files);
      } finally {
        appending.delete(sessionId);
      }
      // In the background: chat.send returns once the user message is stored.
      // Held until the title is decided: the turn's writes all go through the snapshot.
      // The message just stored is the branch's leaf: the snapshot is checked against it.
      ctx.deps.sessions.hold(sessionId, user.id);
      void runSessionWork(ctx, sessionId, () => runTurn(turn, request), abort, turn.settings, turn.shownRow())
        .then(() => titleSession(ctx, turn))
        .finally(() => ctx.deps.sessions.release(sessionId));
      return { accepted: true, userMessageId: user.id };
    },

    // A renderer that (re)loads mid-turn learns here what history cannot tell yet.
    'chat.state': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return ctx.sessions.get(sessionId).state();
    },

    // Stops a turn or a manual compaction (compaction.run keeps its controller here too).
    'chat.cancel': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      const rt = ctx.sessions.get(sessionId);
      if (!rt.busy || !rt.stop()) return { cancelled: false };
      await rt.running;
      return { cancelled: true };
    },

    'chat.approve': async ({ sessionId, toolCallId, decision, remember, useOriginal, reason }) => {
      requireSession(ctx, sessionId);
      const rt = ctx.sessions.get(sessionId);
      if (!rt.waitsForApproval(toolCallId))
        throw new AppError('not_found', `No tool call ${toolCallId} is waiting for approval.`);
      // "Allow … / Deny … in this session, folder, everywhere": rules made from the call decide
      // later calls (this one's turn included). Refused, with the call still waiting, when no rule
      // may allow it (a floor: protected paths, credentials, leaving the sandbox).
      // A helper's card (its own session's call) remembers for the session it works for: its rules are its parent's.
      const owner = ctx.deps.store.helpers.get(sessionId)?.parentSessionId ?? sessionId;
      if (remember) rememberRules(ctx, owner, rt.pendingCall(toolCallId), remember, decision, reason);
      rt.answer(toolCallId, decision === 'approve' && useOriginal ? 'approve_original' : decision, reason);
      return { ok: true };
    },
  };
}

/**
 * After the first reply, a short title from the model replaces the one cut from the first message,
 * unless the user renamed the session meanwhile. Off the turn: the session is not busy while it
 * runs; a failure keeps the first-message title, silently (it is a nicety, not the user's work).
 */
function titleSession(ctx: ApiContext, turn: Pick<Turn, 'sessionId' | 'profile' | 'client' | 'state'>): void {
  const { sessionId, profile, client } = turn;
  if (turn.state.background) return;
  const exchange = firstExchange(ctx.deps.sessions.get(sessionId).history);
  const row = exchange ? ctx.deps.store.sessions.get(sessionId) : null;
  if (!row || !exchange || !isAutoTitle(row.title, exchange.user)) return;
  turn.state.runInBackground(async (signal) => {
    try {
      const title = await askTitle(client, exchange, signal, (usage) => {
        // The title request's tokens are the user's spending too (turn/cost.ts).
        const model = profile.compactionModel ?? profile.model;
        recordCall(ctx.deps, { sessionId, profile, model, kind: 'title', usage });
        emitCost(ctx.deps, sessionId);
      });
      const now = ctx.deps.store.sessions.get(sessionId);
      if (title === '' || !now || !isAutoTitle(now.title, exchange.user)) return;
      ctx.deps.store.sessions.rename(sessionId, title);
      emitSession(ctx, sessionId);
    } catch {
      // No title from the model: the first message's stays.
    }
  });
}
