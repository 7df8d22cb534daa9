import { AppError, type AppApi } from '@threadline/protocol';
import { prepareAttachments } from '../attachments';
import { userRequest } from '../triggers/manual';
import { appendUserMessage, runTurn } from '../turn/runTurn';
import { activeProvider, currentSettings, requireSession, runSessionWork, type ApiContext } from './apiContext';

type ChatRoutes = Pick<
  AppApi,
  'chat.send' | 'chat.cancel' | 'chat.approve' | 'chat.state' | 'approvals.list' | 'approvals.set'
>;

/** renderer send → … → AppApi.send: append the user message, return, run the turn in the background. */
export function chatRoutes(ctx: ApiContext): ChatRoutes {
  return {
    'chat.send': async ({ sessionId, text, attachments }) => {
      requireSession(ctx, sessionId);
      const rt = ctx.runtimes.get(sessionId);
      if (rt.busy) throw new AppError('busy', 'A turn is already running in this session; wait for it or cancel it.');
      const { profile, client } = activeProvider(ctx, sessionId);
      const settings = currentSettings(ctx);
      const files = attachments?.length ? prepareAttachments(ctx.deps.store, attachments) : undefined;
      const request = userRequest(text);
      const user = appendUserMessage(ctx.deps, sessionId, request, profile, undefined, files);
      // In the background: chat.send returns once the user message is stored.
      void runSessionWork(ctx, sessionId, (signal) =>
        runTurn({ deps: ctx.deps, sessionId, settings, profile, client, signal }, request),
      );
      return { accepted: true, userMessageId: user.id };
    },

    // A renderer that (re)loads mid-turn learns here what history cannot tell yet.
    'chat.state': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return ctx.runtimes.get(sessionId).state();
    },

    // Stops a turn or a manual compaction (compaction.run keeps its controller here too).
    'chat.cancel': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      const rt = ctx.runtimes.get(sessionId);
      if (!rt.busy || !rt.abort) return { cancelled: false };
      rt.abort.abort();
      await rt.running;
      return { cancelled: true };
    },

    'chat.approve': async ({ sessionId, toolCallId, decision, remember, useOriginal }) => {
      requireSession(ctx, sessionId);
      const rt = ctx.runtimes.get(sessionId);
      const waiter = rt.pendingApprovals.get(toolCallId);
      if (!waiter) throw new AppError('not_found', `No tool call ${toolCallId} is waiting for approval.`);
      // "Always" for this session: later calls of the tool follow the answer without asking.
      const toolName = rt.pending.get(toolCallId)?.toolCall.function.name;
      if (remember && toolName)
        ctx.deps.store.approvals.set(sessionId, toolName, decision === 'approve' ? 'auto' : 'deny');
      waiter(decision === 'approve' && useOriginal ? 'approve_original' : decision);
      return { ok: true };
    },
    'approvals.list': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return ctx.deps.store.approvals.list(sessionId);
    },
    'approvals.set': async ({ sessionId, toolName, policy }) => {
      requireSession(ctx, sessionId);
      if (policy === null) ctx.deps.store.approvals.remove(sessionId, toolName);
      else ctx.deps.store.approvals.set(sessionId, toolName, policy);
      return ctx.deps.store.approvals.list(sessionId);
    },
  };
}
