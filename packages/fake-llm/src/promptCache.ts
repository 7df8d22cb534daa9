import { createHash } from 'node:crypto';
import { countText, contentText } from './tokens';
import type { RequestMessage } from './types';

// The same accounting as countPromptTokens (tokens.ts): 3 tokens per message, 1 for a name.
const PER_MESSAGE = 3;
const PER_NAME = 1;

function messageTokens(m: RequestMessage): number {
  let n = PER_MESSAGE + countText(m.role) + countText(contentText(m.content));
  if (m.name) n += PER_NAME + countText(m.name);
  for (const tc of m.tool_calls ?? [])
    n += countText(tc.function?.name ?? '') + countText(tc.function?.arguments ?? '');
  if (m.tool_call_id) n += countText(m.tool_call_id);
  return n;
}

/**
 * A provider's automatic prompt cache, as OpenAI, DeepSeek and OpenRouter bill it: the part of a
 * request that repeats the beginning of an earlier request is "cached". The prefix is compared in
 * whole parts (the model and tool definitions first, then each message, as providers cache in
 * blocks) and measured in this server's own tokens; it never expires.
 */
export class PromptCache {
  /** Hash chains of every prefix seen: h(k) = sha1(h(k-1) + part k). */
  private seen = new Set<string>();

  /** Cached tokens of this request (the longest prefix seen before), then remembers its prefixes. */
  lookup(model: string, tools: unknown[], messages: RequestMessage[]): number {
    const parts: { key: string; tokens: number }[] = [
      {
        key: `${model}\u0000${JSON.stringify(tools)}`,
        tokens: tools.length > 0 ? countText(JSON.stringify(tools)) : 0,
      },
      ...messages.map((m) => ({ key: JSON.stringify(m), tokens: messageTokens(m) })),
    ];
    let hash = '';
    let cached = 0;
    let hit = true;
    for (const p of parts) {
      hash = createHash('sha1').update(hash).update('\u0001').update(p.key).digest('hex');
      if (hit && this.seen.has(hash)) cached += p.tokens;
      else hit = false;
      this.seen.add(hash);
    }
    return cached;
  }

  clear(): void {
    this.seen.clear();
  }
}
