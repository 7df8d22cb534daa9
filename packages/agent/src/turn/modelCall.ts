import { isContextLimitError, visionSupport } from '@threadline/context';
import type { ToolCall } from '@threadline/protocol';
import { ProviderError, type ProviderErrorKind } from '../provider/errors';
import type { ImageResolver } from '../provider/messages';
import type { CallUsage, StreamChatResult } from '../provider/types';
import { compactIfDue } from './compactIfDue';
import { recoverFromContextError } from './recovery';
import type { Turn } from './turn';
import type { SessionWork } from './sessionWork';
import { observeProviderUsage, tokenBudget } from './budget';
import { emitUsage } from './usage';
import { buildSessionView, type SessionView } from './view';

/**
 * What one model call gave. `usage`: what the provider reported, not stored yet: the caller stores
 * it with the step when it commits at once (the answer, a cancelled call), else right away.
 */
export type ModelReply =
  | {
      kind: 'reply';
      id: string;
      content: string;
      reasoning: string;
      toolCalls: ToolCall[];
      sv: SessionView;
      usage: CallUsage | null;
    }
  | { kind: 'aborted'; id: string; content: string; usage?: CallUsage | null }
  | { kind: 'stopped' }
  | { kind: 'error'; id: string; content: string; error: unknown };

/** Stream the reply: provider stream → deltas as events. The partial text survives an abort or an error. */
async function streamReply(
  turn: Turn,
  sv: SessionView,
  id: string,
  sink: { content: string },
): Promise<StreamChatResult> {
  const { deps, sessionId } = turn;
  const rt = turn.state;
  return turn.client.streamChat({
    messages: sv.view.messages,
    tools: turn.tools().specs(),
    signal: turn.signal,
    onDelta: (delta) => {
      sink.content += delta;
      rt.streamed(id, sink.content);
      deps.emit({ type: 'message.delta', sessionId, messageId: id, delta });
    },
    onReasoningDelta: (delta) => deps.emit({ type: 'message.delta', sessionId, messageId: id, delta, reasoning: true }),
    // The provider's wait can be long (a rate limit): the user sees why nothing streams yet.
    resolveImage: imageResolver(turn),
    onRetry: (info) =>
      deps.emit({
        type: 'provider.retrying',
        sessionId,
        attempt: info.attempt,
        maxRetries: info.maxRetries,
        delayMs: info.delayMs,
        reason: retryReason(info.error.kind),
      }),
  });
}

/** Image parts as data URLs, from the attachments table (each read once per request). */
function imageResolver(turn: Turn): ImageResolver {
  return (part) => {
    const bytes = turn.deps.store.attachments.bytes(part.attachmentId);
    return bytes ? `data:${part.mime};base64,${bytes.toString('base64')}` : null;
  };
}

function retryReason(kind: ProviderErrorKind): 'rate_limit' | 'server' | 'network' | 'other' {
  return kind === 'rate_limit' || kind === 'server' || kind === 'network' ? kind : 'other';
}

/**
 * One model call: build view → auto trigger → provider stream, with the recovery loop around a
 * context-length error (compact lower, rebuild, retry).
 */
export async function callModel(turn: Turn): Promise<ModelReply> {
  const { deps, sessionId } = turn;
  const id = deps.newId();
  // Recovery compactions of this call: taken back if the call never gets through (they did not help).
  const recovered: string[] = [];
  for (let attempt = 1; ; attempt++) {
    // The profile may have learned a smaller window from the provider's error (turn/recovery.ts).
    const profile = turn.profile;
    let sv = buildSessionView(turn);
    // One budget for the trigger and the meter: neither changes the tools or the ratio.
    const budget = tokenBudget(deps, sessionId, profile);
    sv = await compactIfDue(turn, sv, budget);
    emitUsage(turn, sv, budget);
    if (turn.signal.aborted) return { kind: 'aborted', id, content: '' };
    // A model known to read no images is not asked: the user gets the sentence, not its error.
    if (visionSupport(profile.model) === false && sv.view.messages.some((m) => (m.images?.length ?? 0) > 0))
      return {
        kind: 'error',
        id,
        content: '',
        error: new ProviderError('no_vision', `${profile.model} does not accept image input`),
      };
    const sink = { content: '' };
    // A retried call streams its text from the start again.
    turn.state.streamRestarted();
    try {
      const res = await streamReply(turn, sv, id, sink);
      const usage = res.usage ?? null;
      if (usage) observeProviderUsage(deps, sessionId, profile, sv.view.tokens, usage.promptTokens);
      if (turn.signal.aborted) return { kind: 'aborted', id, content: sink.content, usage };
      return {
        kind: 'reply',
        id,
        content: res.content || sink.content,
        reasoning: res.reasoning,
        toolCalls: res.toolCalls,
        sv,
        usage,
      };
    } catch (err) {
      if (turn.signal.aborted) return { kind: 'aborted', id, content: sink.content };
      if (!isContextLimitError(err)) return { kind: 'error', id, content: sink.content, error: err };
      const step = await recoverFromContextError(turn, attempt, err);
      if (step.compactionId) recovered.push(step.compactionId);
      if (!step.retry) {
        undoRecovered(turn, recovered);
        return { kind: 'stopped' };
      }
      if (turn.signal.aborted) return { kind: 'aborted', id, content: '' };
    }
  }
}

/**
 * The recovery compactions of a call that never got through did not help: they are taken back,
 * newest first, so the conversation is as it was before the failed call.
 */
function undoRecovered(turn: Turn, ids: readonly string[]): void {
  const { deps, sessionId } = turn;
  for (const cid of [...ids].reverse()) {
    const newest = deps.store.compactions.active(sessionId).at(-1);
    if (newest?.id !== cid) break;
    const undone = deps.sessions.undoCompaction(sessionId);
    if (undone) deps.emit({ type: 'compaction.undone', sessionId, compaction: undone });
  }
}

/** A fresh view after the store changed, for the usage event at the end of a step. */
export function refreshUsage(work: SessionWork): void {
  emitUsage(work, buildSessionView(work));
}
