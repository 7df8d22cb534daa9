import type { ChatMessage } from '@threadline/protocol';
import { countTextTokensAsync, encoderFor, estimateTextTokens, type SliceOptions } from './encoder';
import { encodingForModel } from './models';
import { hashParts } from './hash';
import { imageTokens } from './images';

/**
 * Per-message framing, as OpenAI documents for its chat format: every message costs
 * `<|start|>{role}<|message|>…<|end|>` = 3 tokens, a `name` one more, each tool call its name,
 * arguments and ~4 tokens of JSON framing, and every request 3 tokens to prime the reply.
 */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
export const TOKENS_PER_TOOL_CALL = 4;
export const TOKENS_PER_REQUEST = 3;

/**
 * Where counts survive between calls. The store persists a message's count in
 * `StoredMessage.tokens`; this cache covers everything else (inserted messages, previews, CLI).
 * Keys already include the encoding, so one cache can serve several models.
 */
export interface TokenCache {
  get(key: string): number | undefined;
  set(key: string, tokens: number): void;
}

/** A bounded in-memory TokenCache (insertion-ordered eviction). */
export class MemoryTokenCache implements TokenCache {
  private readonly map = new Map<string, number>();
  hits = 0;
  misses = 0;
  constructor(private readonly maxEntries = 50_000) {}
  get(key: string): number | undefined {
    const v = this.map.get(key);
    if (v === undefined) this.misses++;
    else this.hits++;
    return v;
  }
  set(key: string, tokens: number): void {
    if (this.map.size >= this.maxEntries) {
      const first = this.map.keys().next();
      if (!first.done) this.map.delete(first.value);
    }
    this.map.set(key, tokens);
  }
  get size(): number {
    return this.map.size;
  }
}

/** One process-wide cache used when callers pass none. */
export const defaultTokenCache = new MemoryTokenCache();

/** The text of a message that tokens are spent on, in a stable order (the hash input, in parts). */
function messageFingerprint(msg: ChatMessage): string[] {
  const parts = [msg.role, '\u0000', msg.content ?? ''];
  if (msg.name !== undefined) parts.push('\u0001', msg.name);
  if (msg.tool_call_id !== undefined) parts.push('\u0002', msg.tool_call_id);
  for (const tc of msg.tool_calls ?? []) parts.push('\u0003', tc.function.name, '\u0004', tc.function.arguments);
  for (const im of msg.images ?? []) parts.push('\u0005', `${im.width}x${im.height}`);
  return parts;
}

/**
 * The hash of each message object's fingerprint, kept with the parts it was made of: a message is
 * looked up at ingest, in the view and in compaction, and hashing a pasted megabyte each time cost
 * more than the lookup saves. The entry is reused only while every part is still the same string
 * (a field replaced or a message edited in place is hashed again).
 */
const fingerprintHashes = new WeakMap<object, { parts: string[]; hash: string }>();

function messageHash(msg: ChatMessage): string {
  const parts = messageFingerprint(msg);
  const last = fingerprintHashes.get(msg);
  if (last !== undefined && last.parts.length === parts.length && last.parts.every((p, i) => p === parts[i]))
    return last.hash;
  const hash = hashParts(parts);
  fingerprintHashes.set(msg, { parts, hash });
  return hash;
}

/** The cache key of a message's count under a model's encoding. */
export function messageTokenKey(msg: ChatMessage, model: string): string {
  return encodingForModel(model) + ':' + messageHash(msg);
}

/** Counts a message without any cache. */
export function countMessageTokensUncached(msg: ChatMessage, model: string): number {
  const enc = encoderFor(model);
  let n = TOKENS_PER_MESSAGE + enc.count(msg.content ?? '');
  if (msg.name !== undefined) n += TOKENS_PER_NAME + enc.count(msg.name);
  if (msg.tool_call_id !== undefined) n += enc.count(msg.tool_call_id);
  for (const tc of msg.tool_calls ?? []) {
    n += TOKENS_PER_TOOL_CALL + enc.count(tc.function.name) + enc.count(tc.function.arguments);
  }
  for (const im of msg.images ?? []) n += imageTokens(im.width, im.height);
  return n;
}

/**
 * A message's tokens including framing, cached by content hash. The store should save the
 * result as `StoredMessage.tokens` so a reopened session recounts nothing.
 */
export function countMessageTokens(msg: ChatMessage, model: string, cache: TokenCache = defaultTokenCache): number {
  const key = messageTokenKey(msg, model);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const n = countMessageTokensUncached(msg, model);
  cache.set(key, n);
  return n;
}

/** Tokens of a whole request: the messages plus the reply priming. */
export function countMessagesTokens(messages: readonly ChatMessage[], model: string, cache?: TokenCache): number {
  let n = TOKENS_PER_REQUEST;
  for (const m of messages) n += countMessageTokens(m, model, cache);
  return n;
}

/** Characters of a message that are counted (content, name, tool calls). */
export function messageTextLength(msg: ChatMessage): number {
  let n = (msg.content ?? '').length + (msg.name ?? '').length + (msg.tool_call_id ?? '').length;
  for (const tc of msg.tool_calls ?? []) n += tc.function.name.length + tc.function.arguments.length;
  return n;
}

/** countMessageTokens without holding the thread (a long content is counted in slices), cached alike. */
export async function countMessageTokensAsync(
  msg: ChatMessage,
  model: string,
  cache: TokenCache = defaultTokenCache,
  opts?: SliceOptions,
): Promise<number> {
  const key = messageTokenKey(msg, model);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const enc = encoderFor(model);
  let n = TOKENS_PER_MESSAGE + (await countTextTokensAsync(msg.content ?? '', model, opts));
  if (msg.name !== undefined) n += TOKENS_PER_NAME + enc.count(msg.name);
  if (msg.tool_call_id !== undefined) n += enc.count(msg.tool_call_id);
  for (const tc of msg.tool_calls ?? []) {
    n +=
      TOKENS_PER_TOOL_CALL +
      enc.count(tc.function.name) +
      (await countTextTokensAsync(tc.function.arguments, model, opts));
  }
  cache.set(key, n);
  return n;
}

/** A message's tokens estimated at once (estimateTextTokens of its texts plus the framing). */
export function estimateMessageTokens(msg: ChatMessage): number {
  let n = TOKENS_PER_MESSAGE + estimateTextTokens(msg.content ?? '');
  if (msg.name !== undefined) n += TOKENS_PER_NAME + estimateTextTokens(msg.name);
  if (msg.tool_call_id !== undefined) n += estimateTextTokens(msg.tool_call_id);
  for (const tc of msg.tool_calls ?? [])
    n += TOKENS_PER_TOOL_CALL + estimateTextTokens(tc.function.name) + estimateTextTokens(tc.function.arguments);
  return n;
}

/**
 * countMessageTokens when the content's count is already known (a tool output counted whole by its
 * write-time truncation): the rest is counted, the sum cached alike.
 */
export function countMessageTokensWithContent(
  msg: ChatMessage,
  model: string,
  contentTokens: number,
  cache: TokenCache = defaultTokenCache,
): number {
  const key = messageTokenKey(msg, model);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const enc = encoderFor(model);
  let n = TOKENS_PER_MESSAGE + contentTokens;
  if (msg.name !== undefined) n += TOKENS_PER_NAME + enc.count(msg.name);
  if (msg.tool_call_id !== undefined) n += enc.count(msg.tool_call_id);
  for (const tc of msg.tool_calls ?? []) {
    n += TOKENS_PER_TOOL_CALL + enc.count(tc.function.name) + enc.count(tc.function.arguments);
  }
  cache.set(key, n);
  return n;
}
