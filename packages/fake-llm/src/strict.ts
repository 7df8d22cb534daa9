import { contentText } from './tokens';
import type { RequestMessage } from './types';

/**
 * What the strictest OpenAI-compatible providers refuse in a chat request's messages, each with
 * the sentence that provider answers (a 400 invalid_request_error):
 * - OpenAI: an assistant `tool_calls` message not followed, right away, by a tool message for
 *   each of its ids; a tool message that answers no call of the message before it (or answers one
 *   twice); an empty `tool_calls` array; a tool message without `tool_call_id`.
 * - Mistral: a request whose last message is an assistant's.
 * - vLLM and llama.cpp chat templates (Qwen, Llama): a system message after the first non-system one.
 * - Anthropic-compatible gateways: an assistant message with neither text nor tool calls; a
 *   tool call id used twice.
 * Looser providers accept all of these; a request the strict mode passes is valid everywhere.
 */
export interface StrictProblem {
  message: string;
  /** The offending field, as OpenAI names it (`messages.[3].role`). */
  param: string;
}

const hasText = (m: RequestMessage): boolean => contentText(m.content).trim() !== '' || Array.isArray(m.content);

export function strictProblem(messages: readonly RequestMessage[]): StrictProblem | null {
  const seenIds = new Set<string>();
  /** The call ids of the last assistant message still waiting for their results, and where it is. */
  let pending: { at: number; ids: Set<string> } | null = null;
  let leadingSystem = true;
  const unanswered = (p: { at: number; ids: Set<string> }): StrictProblem => ({
    message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...p.ids].join(', ')}`,
    param: `messages.[${p.at}].role`,
  });
  for (const [i, m] of messages.entries()) {
    if (m.role === 'system') {
      if (!leadingSystem) return { message: 'System message must be at the beginning.', param: `messages.[${i}].role` };
      continue;
    }
    leadingSystem = false;
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string' || m.tool_call_id === '')
        return {
          message: "Missing required parameter: 'messages.[" + i + "].tool_call_id'.",
          param: `messages.[${i}].tool_call_id`,
        };
      if (!pending?.ids.has(m.tool_call_id))
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${i}].role`,
        };
      pending.ids.delete(m.tool_call_id);
      if (pending.ids.size === 0) pending = null;
      continue;
    }
    if (pending) return unanswered(pending);
    if (m.role !== 'assistant') continue;
    const calls = m.tool_calls;
    if (calls !== undefined && calls.length === 0)
      return {
        message: `Invalid 'messages[${i}].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
        param: `messages.[${i}].tool_calls`,
      };
    if (!calls) {
      if (!hasText(m))
        return {
          message: `messages.${i}: an assistant message must have either non-empty content or tool_calls.`,
          param: `messages.[${i}].content`,
        };
      continue;
    }
    const ids = new Set<string>();
    for (const c of calls) {
      const id = c.id ?? '';
      if (id === '' || seenIds.has(id))
        return {
          message: `messages.${i}: tool call ids must be unique and non-empty; got ${JSON.stringify(id)} twice or empty.`,
          param: `messages.[${i}].tool_calls`,
        };
      seenIds.add(id);
      ids.add(id);
    }
    pending = { at: i, ids };
  }
  if (pending) return unanswered(pending);
  const last = messages.at(-1);
  if (last && last.role !== 'user' && last.role !== 'tool')
    return {
      message: `Expected last role User or Tool (or Assistant with prefix True) for serving but got ${last.role}`,
      param: `messages.[${messages.length - 1}].role`,
    };
  return null;
}
