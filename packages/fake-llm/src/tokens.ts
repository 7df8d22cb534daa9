import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';
import type { RequestMessage } from './types';

// Loaded lazily: building the o200k table takes a moment and `import` of this module should not.
let encoder: Tiktoken | null = null;
function enc(): Tiktoken {
  encoder ??= new Tiktoken(o200k_base);
  return encoder;
}

// js-tiktoken's BPE is quadratic in the length of one pre-token: 10,000 letters without a space
// (base64, minified code, hex dumps in tool outputs) take ~30 s. Cutting such runs into 256-char
// pieces makes counting linear and changes the count by at most one token per cut.
const LONG_RUN = /\S{257}/;
const RUN_PIECE = /(\S{256})/;

/** Tokens of a string in o200k_base. */
export function countText(text: string): number {
  if (text.length === 0) return 0;
  if (!LONG_RUN.test(text)) return enc().encode(text).length;
  let n = 0;
  for (const part of text.split(RUN_PIECE)) if (part.length > 0) n += enc().encode(part).length;
  return n;
}

/** The text of a message's content, whether a string or an array of content parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
          ? (p as { text: string }).text
          : '',
      )
      .join('');
  }
  return '';
}

// OpenAI's documented accounting for chat models: 3 tokens per message, 1 for a name, 3 to prime
// the reply. Close enough to the real server for a window check; not meant to be exact.
const PER_MESSAGE = 3;
const PER_NAME = 1;
const REPLY_PRIMING = 3;

/** Prompt tokens of a request: its messages plus its tool definitions serialized as JSON. */
export function countPromptTokens(messages: RequestMessage[], tools: unknown[]): number {
  let total = REPLY_PRIMING;
  for (const m of messages) {
    total += PER_MESSAGE + countText(m.role) + countText(contentText(m.content));
    if (m.name) total += PER_NAME + countText(m.name);
    for (const tc of m.tool_calls ?? []) {
      total += countText(tc.function?.name ?? '') + countText(tc.function?.arguments ?? '');
    }
    if (m.tool_call_id) total += countText(m.tool_call_id);
  }
  if (tools.length > 0) total += countText(JSON.stringify(tools));
  return total;
}
