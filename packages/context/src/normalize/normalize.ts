import type { ChatMessage } from '@threadline/protocol';
import { ABORTED_TOOL_OUTPUT } from '../markers';

export { ABORTED_TOOL_OUTPUT };

/**
 * A tool call with no result anywhere after it gets a synthetic `"aborted"` result placed right
 * after the call's existing results (OpenAI rejects a call without an answer).
 */
export function ensureCallOutputsPresent<T extends ChatMessage>(
  messages: readonly T[],
  makeSynthetic: (callId: string) => T = (id) =>
    ({ role: 'tool', content: ABORTED_TOOL_OUTPUT, tool_call_id: id }) as T,
): T[] {
  const answered = new Set<string>();
  for (const m of messages) if (m.role === 'tool' && m.tool_call_id !== undefined) answered.add(m.tool_call_id);
  const out: T[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    out.push(m);
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    const missing = m.tool_calls.map((c) => c.id).filter((id) => !answered.has(id));
    if (missing.length === 0) continue;
    // Keep the call's own results together: insert after the run of tool messages that follows.
    while (i + 1 < messages.length && messages[i + 1]!.role === 'tool') out.push(messages[++i]!);
    for (const id of missing) {
      out.push(makeSynthetic(id));
      answered.add(id);
    }
  }
  return out;
}

/** Drops tool results whose call is not in an earlier assistant message of the view. */
export function removeOrphanOutputs<T extends ChatMessage>(messages: readonly T[]): T[] {
  const called = new Set<string>();
  const out: T[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) called.add(c.id);
    if (m.role === 'tool' && (m.tool_call_id === undefined || !called.has(m.tool_call_id))) continue;
    out.push(m);
  }
  return out;
}

/** Both passes, in the order that makes the result a fixed point (normalizeView∘normalizeView = normalizeView). */
export function normalizeView<T extends ChatMessage>(
  messages: readonly T[],
  makeSynthetic?: (callId: string) => T,
): T[] {
  return ensureCallOutputsPresent(removeOrphanOutputs(messages), makeSynthetic);
}

export interface PairViolations {
  /** Tool calls with no result after them. */
  unansweredCalls: string[];
  /** Tool results with no earlier call. */
  orphanResults: string[];
}

/** Pair integrity of a view, for tests and the bench (a normalized view has none). */
export function pairViolations(messages: readonly ChatMessage[]): PairViolations {
  const called = new Set<string>();
  const answered = new Set<string>();
  const orphanResults: string[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) called.add(c.id);
    if (m.role === 'tool') {
      const id = m.tool_call_id ?? '';
      if (!called.has(id)) orphanResults.push(id);
      else answered.add(id);
    }
  }
  const unansweredCalls = [...called].filter((id) => !answered.has(id));
  return { unansweredCalls, orphanResults };
}
