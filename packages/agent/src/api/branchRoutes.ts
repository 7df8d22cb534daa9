import { attachmentsOf } from '@threadline/context';
import { prepareAttachments } from '../attachments';
import { AppError, type AppApi, type StoredMessage } from '@threadline/protocol';
import { userRequest, type UserRequest } from '../turn/manualCompaction';
import { acceptUserMessage } from '../turn/acceptUserMessage';
import { runTurn } from '../turn/runTurn';
import type { TurnDeps } from '../turn/deps';
import type { Turn } from '../turn/turn';
import { emitSession, requireSession, type ApiContext } from './apiContext';
import { runSessionWork } from './runSessionWork';
import { startTurn } from './startTurn';

type BranchRoutes = Pick<AppApi, 'chat.edit' | 'chat.regenerate' | 'chat.retry' | 'branches.switch'>;

/** The active branch (opening the session's snapshot), each message with its versions when it has some (messages.list). */
export function activeBranch(deps: Pick<TurnDeps, 'store' | 'sessions'>, sessionId: string): StoredMessage[] {
  const versions = deps.store.messages.versions(sessionId);
  return deps.sessions.get(sessionId).history.map((m) => {
    const v = versions[m.id];
    return v ? { ...m, versions: v } : m;
  });
}

function requireIdle(ctx: ApiContext, sessionId: string): void {
  requireSession(ctx, sessionId);
  if (ctx.sessions.get(sessionId).busy)
    throw new AppError('busy', 'A turn is already running in this session; wait for it or cancel it.');
}

/** The turn after a user message that is already on the active branch, in the background. */
function answer(ctx: ApiContext, turn: Turn, abort: AbortController, request: UserRequest): void {
  void runSessionWork(ctx, turn.sessionId, () => runTurn(turn, request), abort, turn.settings);
}

/**
 * Edit, regenerate and retry add versions, never change history: an edit is a sibling of the
 * edited message, a regenerated or retried reply a sibling of the reply it replaces.
 */
export function branchRoutes(ctx: ApiContext): BranchRoutes {
  const { store } = ctx.deps;

  /** Regenerate and retry: the last request of the branch answered again, from itself. */
  const answerAgain = async ({ sessionId }: { sessionId: string }) => {
    requireIdle(ctx, sessionId);
    const request = ctx.deps.sessions
      .get(sessionId)
      .history.findLast((m) => m.role === 'user' && m.kind === 'normal' && m.visibility.agent);
    if (!request) throw new AppError('not_found', 'There is no request in this conversation to answer again.');
    const abort = new AbortController();
    const turn = startTurn(ctx, sessionId, abort.signal); // no provider: nothing moves
    ctx.deps.sessions.switchBranch(sessionId, request.id, { exact: true });
    answer(ctx, turn, abort, userRequest(store.messages.get(request.id)?.fullOutput ?? request.content ?? ''));
    return { accepted: true as const, userMessageId: request.id };
  };

  return {
    'chat.edit': async ({ sessionId, messageId, text }) => {
      requireIdle(ctx, sessionId);
      const target = store.messages.get(messageId);
      if (!target || target.sessionId !== sessionId || target.role !== 'user' || target.kind !== 'normal')
        throw new AppError('not_found', `No message of yours with id ${messageId} in this session.`);
      const abort = new AbortController();
      const turn = startTurn(ctx, sessionId, abort.signal);
      const request = userRequest(text);
      // The new version keeps the attachments of the one it replaces (the edit is of the text).
      const refs = attachmentsOf(target);
      const files = refs.length
        ? prepareAttachments(
            store,
            refs.map((r) => r.id),
            new Map(refs.map((r) => [r.id, r.name])),
          )
        : undefined;
      const user = await acceptUserMessage(turn, request, target.parentId ?? null, files);
      answer(ctx, turn, abort, request);
      return { accepted: true, userMessageId: user.id };
    },
    'chat.regenerate': answerAgain,
    'chat.retry': answerAgain,
    'branches.switch': async ({ sessionId, messageId }) => {
      requireIdle(ctx, sessionId);
      const target = store.messages.get(messageId);
      if (!target || target.sessionId !== sessionId)
        throw new AppError('not_found', `No message with id ${messageId} in this session.`);
      ctx.deps.sessions.switchBranch(sessionId, messageId);
      emitSession(ctx, sessionId); // its message count is the branch's
      return activeBranch(ctx.deps, sessionId);
    },
  };
}
