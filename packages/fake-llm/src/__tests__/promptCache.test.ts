import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countPromptTokens, startFakeLlm, type FakeLlm } from '../index';

let llm: FakeLlm;
let client: OpenAI;
beforeAll(async () => {
  llm = await startFakeLlm();
  client = new OpenAI({ baseURL: llm.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const sys: Msg = { role: 'system', content: 'You are a careful agent. '.repeat(20) };

async function cachedOf(messages: Msg[], stream = false): Promise<number> {
  if (stream) {
    const s = await client.chat.completions.create({
      model: 'm',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let cached = -1;
    for await (const c of s) if (c.usage) cached = c.usage.prompt_tokens_details?.cached_tokens ?? -1;
    return cached;
  }
  const r = await client.chat.completions.create({ model: 'm', messages });
  return r.usage!.prompt_tokens_details!.cached_tokens!;
}

describe('prompt cache', () => {
  it('reports as cached the tokens of the longest prefix an earlier request had, in whole messages', async () => {
    const first: Msg[] = [sys, { role: 'user', content: 'hello there' }];
    expect(await cachedOf(first)).toBe(0);
    const next: Msg[] = [
      ...first,
      { role: 'assistant', content: 'You said: hello there' },
      { role: 'user', content: 'more' },
    ];
    // The whole first request minus the reply priming is the prefix of the second.
    expect(await cachedOf(next, true)).toBe(countPromptTokens(first, []) - 3);
    // A changed first message breaks the prefix at once.
    expect(await cachedOf([{ role: 'system', content: 'other' }, ...next.slice(1)])).toBe(0);
    // The recorded request carries the usage too.
    expect(llm.chatRequests().at(-1)!.usage).toMatchObject({ cached_tokens: 0 });
    // Forgotten with reset.
    llm.reset();
    expect(await cachedOf(first)).toBe(0);
  });

  it('speaks DeepSeek’s fields when asked', async () => {
    const ds = await startFakeLlm({ usageStyle: 'deepseek' });
    try {
      const c = new OpenAI({ baseURL: ds.url, apiKey: 'test', maxRetries: 0 });
      const msgs: Msg[] = [sys, { role: 'user', content: 'hi' }];
      await c.chat.completions.create({ model: 'm', messages: msgs });
      const r = await c.chat.completions.create({
        model: 'm',
        messages: [...msgs, { role: 'user', content: 'again' }],
      });
      const u = r.usage as unknown as Record<string, number>;
      expect(u['prompt_cache_hit_tokens']).toBe(countPromptTokens(msgs, []) - 3);
      expect(u['prompt_cache_hit_tokens']! + u['prompt_cache_miss_tokens']!).toBe(r.usage!.prompt_tokens);
    } finally {
      await ds.close();
    }
  });
});
