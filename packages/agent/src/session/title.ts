import type { ChatMessage, StoredMessage } from '@threadline/protocol';
import type { ProviderClient } from '../provider/client';
import type { CallUsage } from '../provider/types';

/** What the title request says: short on purpose, it runs once per session. */
export const TITLE_INSTRUCTION =
  'Title this conversation in at most six words, in the language the user wrote in. Reply with the title only: no quotes, no trailing punctuation.';

/** How much of the first exchange the title request carries. */
const USER_CHARS = 2_000;
const ANSWER_CHARS = 1_000;

/**
 * The first exchange of a session, when the session is still at it: exactly one message of the
 * user's and an answer with text after it. null otherwise (no title to make, or made already).
 */
export function firstExchange(history: readonly StoredMessage[]): { user: string; answer: string } | null {
  const users = history.filter((m) => m.role === 'user' && m.kind === 'normal' && m.visibility.agent);
  if (users.length !== 1) return null;
  const first = users[0]!;
  const answer = history.find((m) => m.role === 'assistant' && m.seq > first.seq && (m.content ?? '').trim() !== '');
  if (!answer) return null;
  return { user: first.content ?? '', answer: answer.content ?? '' };
}

/** Whether a title is still the one made from the first message (the user did not rename it). */
export function isAutoTitle(title: string, firstUserText: string): boolean {
  return title === '' || title === titleFrom(firstUserText);
}

/** The model's title as one plain line (no quotes, Markdown or "Title:"), or '' when unusable. */
export function cleanTitle(raw: string): string {
  const line =
    raw
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? '';
  const bare = line
    .replace(/^(title|标题)\s*[:：]\s*/i, '')
    .replace(/^["'“”‘’「『《]+|["'“”‘’」』》]+$/g, '')
    .replace(/[.。!！]+$/, '')
    .trim();
  return titleFrom(bare);
}

/**
 * One short model call (the profile's compaction model when it has one) for the session's title;
 * `onUsage` gets its tokens (stored like every call's: turn/cost.ts).
 */
export async function askTitle(
  client: ProviderClient,
  exchange: { user: string; answer: string },
  signal: AbortSignal,
  onUsage?: (usage: CallUsage) => void,
): Promise<string> {
  const messages: ChatMessage[] = [
    {
      role: 'user',
      content: `${TITLE_INSTRUCTION}\n\nUser:\n${exchange.user.slice(0, USER_CHARS)}\n\nAssistant:\n${exchange.answer.slice(0, ANSWER_CHARS)}`,
    },
  ];
  return cleanTitle(await client.complete({ messages, maxTokens: 32, signal, ...(onUsage ? { onUsage } : {}) }));
}

const TITLE_MAX = 60;

/** Inline Markdown as the text it shows: links and images by their text, no emphasis or code marks. */
function plainInline(line: string): string {
  return line
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(\*\*|__|~~)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2');
}

/** The first line that says something, as plain text (no Markdown), cut at a word near 60 chars. */
export function titleFrom(text: string): string {
  const line = text
    .split('\n')
    .map((l) =>
      plainInline(l.replace(/^\s*(#+|>|[-*+]|\d+[.)])\s+/, ''))
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .find((l) => l !== '' && !l.startsWith('```'));
  if (!line) return '';
  if (line.length <= TITLE_MAX) return line;
  const cut = line.slice(0, TITLE_MAX);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
