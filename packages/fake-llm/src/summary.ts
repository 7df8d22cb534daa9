import { contentText } from './tokens';
import type { RequestMessage } from './types';

/**
 * How a summary request is recognised: a system message or the last user message contains the
 * marker `<summary_request>`, or asks in words to summarize/compact the conversation
 * ("summarize the conversation", "summary of this session", "compact the conversation history",
 * "the conversation below is being compacted", "write a handoff note", …).
 */
export const SUMMARY_MARKER = '<summary_request>';
const SUMMARY_WORDS = [
  // "summarize the conversation", "a summary of this session", "compact the chat history"
  /\b(summari[sz]e|summary of|compact|condense)\b[^.]{0,40}\b(conversation|session|chat|history|transcript)\b/i,
  // "the conversation below is being compacted" (the engine's own summarizer prompt)
  /\b(conversation|session|chat|history)\b[^.]{0,40}\bbeing\s+(compacted|summari[sz]ed)\b/i,
  // "write a handoff note" / "context checkpoint" (the engine's own summarizer prompt)
  /\bhandoff note\b/i,
];

export function isSummaryText(text: string): boolean {
  return text.toLowerCase().includes(SUMMARY_MARKER) || SUMMARY_WORDS.some((re) => re.test(text));
}

export function lastOfRole(messages: RequestMessage[], role: string): RequestMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === role) return messages[i];
  return undefined;
}

export function isSummaryRequest(messages: RequestMessage[]): boolean {
  if (messages.some((m) => m.role === 'system' && isSummaryText(contentText(m.content)))) return true;
  const lastUser = lastOfRole(messages, 'user');
  return lastUser !== undefined && isSummaryText(contentText(lastUser.content));
}

const excerpt = (s: string, n: number): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  const cps = Array.from(flat);
  return cps.length <= n ? flat : `${cps.slice(0, n).join('')}…`;
};

/**
 * A deterministic summary: the same request always gets the same text, short whatever the input
 * size, and it names what tests look for (the user's requests and the tools that ran).
 */
export function deterministicSummary(messages: RequestMessage[]): string {
  const users = messages.filter((m) => m.role === 'user').map((m) => contentText(m.content));
  // The instruction itself is not part of what is summarized.
  const asked = users.filter((u) => !isSummaryText(u)).slice(-8);
  const tools = new Map<string, number>();
  for (const m of messages)
    for (const tc of m.tool_calls ?? []) {
      const name = tc.function?.name ?? '?';
      tools.set(name, (tools.get(name) ?? 0) + 1);
    }
  const lines = [`Summary of the conversation so far (${messages.length} messages).`];
  if (asked.length > 0) lines.push(`User requests: ${asked.map((u) => `"${excerpt(u, 80)}"`).join('; ')}.`);
  if (tools.size > 0) lines.push(`Tools used: ${[...tools].map(([n, c]) => `${n} x${c}`).join(', ')}.`);
  return lines.join('\n');
}
