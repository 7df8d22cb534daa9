import type { ChatMessage } from '@threadline/protocol';
import { ABORTED_TOOL_OUTPUT } from '../markers';

export { ABORTED_TOOL_OUTPUT };

/**
 * Every tool call is followed, right away, by its results, as the strictest providers require
 * (OpenAI: "An assistant message with 'tool_calls' must be followed by tool messages responding
 * to each 'tool_call_id'"). A call's result found further on (another message in between) is moved
 * up to it; a call with no result anywhere after it gets a synthetic `"aborted"` result there; a
 * second result for the same call is dropped. Results with no earlier call are left to
 * `removeOrphanOutputs`.
 */
export function ensureCallOutputsPresent<T extends ChatMessage>(
  messages: readonly T[],
  makeSynthetic: (callId: string) => T = (id) =>
    ({ role: 'tool', content: ABORTED_TOOL_OUTPUT, tool_call_id: id }) as T,
): T[] {
  /** The first result of each call id after its call, by position. */
  const resultAt = new Map<string, number>();
  const callOf = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) if (!callOf.has(c.id)) callOf.set(c.id, i);
    if (m.role !== 'tool' || m.tool_call_id === undefined) return;
    const at = callOf.get(m.tool_call_id);
    if (at !== undefined && at < i && !resultAt.has(m.tool_call_id)) resultAt.set(m.tool_call_id, i);
  });
  const placed = new Set<number>();
  const out: T[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      // A result is placed with its call; one placed already, or a second one for a call, is not repeated.
      const id = m.tool_call_id;
      if (placed.has(i) || (id !== undefined && resultAt.has(id) && resultAt.get(id) !== i)) continue;
      out.push(m);
      continue;
    }
    out.push(m);
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    // The call's own results in the order they came, then the synthetic ones.
    const ids = m.tool_calls.map((c) => c.id);
    const found = ids
      .map((id) => resultAt.get(id))
      .filter(
        (at): at is number => at !== undefined && !placed.has(at) && callOf.get(messages[at]!.tool_call_id!) === i,
      )
      .sort((a, b) => a - b);
    for (const at of found) {
      out.push(messages[at]!);
      placed.add(at);
    }
    for (const id of ids) {
      const at = resultAt.get(id);
      if (at !== undefined && callOf.get(id) === i) continue;
      if (callOf.get(id) !== i) continue; // an id used twice: its first call has the result
      out.push(makeSynthetic(id));
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
  /** Tool calls not followed, right away, by their result. */
  unansweredCalls: string[];
  /** Tool results that do not answer a call of the assistant message right before their run. */
  orphanResults: string[];
}

/**
 * Pair integrity of a request as the strictest provider reads it (a normalized view has none): a
 * call's results come in the run of tool messages right after it, each once.
 */
export function pairViolations(messages: readonly ChatMessage[]): PairViolations {
  const unansweredCalls: string[] = [];
  const orphanResults: string[] = [];
  let pending: Set<string> | null = null;
  const close = (): void => {
    if (pending) unansweredCalls.push(...pending);
    pending = null;
  };
  for (const m of messages) {
    if (m.role === 'tool') {
      const id = m.tool_call_id ?? '';
      if (pending?.delete(id)) continue;
      orphanResults.push(id);
      continue;
    }
    close();
    if (m.role === 'assistant' && m.tool_calls?.length) pending = new Set(m.tool_calls.map((c) => c.id));
  }
  close();
  return { unansweredCalls, orphanResults };
}

/**
 * Where a prefix of a request may end (`end`: the index of the first message left out) without
 * leaving a call apart from its results: moved back before the call whose results it would cut.
 */
export function pairSafeEnd(messages: readonly ChatMessage[], end: number): number {
  let e = Math.min(Math.max(0, end), messages.length);
  while (e > 0 && e < messages.length && messages[e]!.role === 'tool') e--;
  return e;
}
