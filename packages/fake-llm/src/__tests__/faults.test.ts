import OpenAI, { APIConnectionError, APIError, BadRequestError, InternalServerError, RateLimitError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { countPromptTokens, startFakeLlm, type ErrorStyle, type FakeLlm } from '../index';

let llm: FakeLlm;
let client: OpenAI;
beforeAll(async () => {
  llm = await startFakeLlm();
  client = new OpenAI({ baseURL: llm.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => llm.close());
beforeEach(() => {
  llm.reset();
  llm.setContextWindow(null);
});

const long = [{ role: 'user' as const, content: 'lorem ipsum dolor sit amet '.repeat(40) }];
async function failure(p: Promise<unknown>): Promise<APIError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(APIError);
  return err as APIError;
}

describe('context window', () => {
  const tokens = countPromptTokens(long, []);
  const cases: [ErrorStyle, string][] = [
    [
      'openai',
      `This model's maximum context length is 100 tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    ],
    ['anthropic', `prompt is too long: ${tokens} tokens > 100 maximum`],
    ['ollama', `prompt too long; exceeded max context length by ${tokens - 100} tokens`],
    [
      'lmstudio',
      `Trying to keep the first ${tokens} tokens when context the overflows. However, the model is loaded with context length of only 100 tokens`,
    ],
  ];
  it.each(cases)('answers a request over the window with the %s error body', async (style, wording) => {
    llm.setContextWindow(100, style);
    const err = await failure(client.chat.completions.create({ model: 'm', messages: long }));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.status).toBe(400);
    expect(err.message).toContain(wording);
  });

  it('uses the exact OpenAI body, code context_length_exceeded', async () => {
    llm.setContextWindow(100, 'openai');
    const res = await fetch(`${llm.url}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: long }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        message: expect.stringContaining('maximum context length is 100'),
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
  });

  it('answers normally at or under the window', async () => {
    llm.setContextWindow(tokens, 'openai');
    const r = await client.chat.completions.create({ model: 'm', messages: long });
    expect(r.usage!.prompt_tokens).toBe(tokens);
  });
});

describe('fault injection', () => {
  it('answers 429 with Retry-After, then the rule reply', async () => {
    llm.setRules([{ reply: { error: { status: 429, retryAfter: 7 } }, times: 1 }, { reply: { content: 'ok now' } }]);
    const err = await failure(
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'a' }] }),
    );
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.headers?.get('retry-after')).toBe('7');
    const r = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'a' }] });
    expect(r.choices[0]!.message.content).toBe('ok now');
  });

  it('sends the extra headers of an error answer (retry-after-ms, x-should-retry)', async () => {
    llm.enqueue({ error: { status: 503, headers: { 'retry-after-ms': '0', 'x-should-retry': 'false' } } });
    const err = await failure(
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'a' }] }),
    );
    expect(err.headers?.get('retry-after-ms')).toBe('0');
    expect(err.headers?.get('x-should-retry')).toBe('false');
  });

  it('serves queued faults first, in order, before the window check', async () => {
    llm.setContextWindow(100);
    llm.enqueue({ error: { status: 500 } }, { error: { status: 503, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' } });
    const e1 = await failure(client.chat.completions.create({ model: 'm', messages: long }));
    const e2 = await failure(client.chat.completions.create({ model: 'm', messages: long }));
    const e3 = await failure(client.chat.completions.create({ model: 'm', messages: long }));
    expect(e1).toBeInstanceOf(InternalServerError);
    expect(e1.status).toBe(500);
    expect(e2.status).toBe(503);
    expect(e2.headers?.get('retry-after')).toBe('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(e3.status).toBe(400);
  });

  it('drops the connection mid-stream after N chunks', async () => {
    llm.enqueue({ content: 'a long answer that never finishes', chunkSize: 3, dropAfterChunks: 3 });
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    const got: string[] = [];
    const err = await (async () => {
      for await (const c of stream) got.push(c.choices[0]?.delta.content ?? '');
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(got.join('')).toBe('a long'); // the role chunk and 2 content chunks of 3 made it
    expect(llm.chatRequests()[0]!.clientClosed).toBe(true);
  });

  it('drops the connection before any byte (non-streaming)', async () => {
    llm.enqueue({ content: 'never', dropAfterChunks: 0 });
    const err = await failure(
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(err).toBeInstanceOf(APIConnectionError);
  });

  it('streams slowly and notices a client that goes away', async () => {
    llm.enqueue({ content: 'slow slow slow slow slow', chunkSize: 2, delayMsPerChunk: 40 });
    const ac = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true },
      { signal: ac.signal },
    );
    const got: string[] = [];
    await (async () => {
      for await (const c of stream) {
        got.push(c.choices[0]?.delta.content ?? '');
        if (got.length === 3) ac.abort();
      }
    })().catch(() => undefined);
    expect(got.join('')).toBe('slow');
    await vi.waitFor(() => expect(llm.chatRequests()[0]!.clientClosed).toBe(true), { timeout: 20_000 });
  });

  it('requires the API key when configured', async () => {
    const keyed = await startFakeLlm({ apiKey: 'sk-right' });
    try {
      const bad = new OpenAI({ baseURL: keyed.url, apiKey: 'sk-wrong', maxRetries: 0 });
      const err = await failure(bad.models.list());
      expect(err.status).toBe(401);
      const good = new OpenAI({ baseURL: keyed.url, apiKey: 'sk-right', maxRetries: 0 });
      expect((await good.models.list()).data).toHaveLength(1);
    } finally {
      await keyed.close();
    }
  });
});

describe('token counting', () => {
  it('counts a long run without spaces (base64, minified code) in linear time, close to the exact count', async () => {
    const { countText } = await import('../index');
    const word = 'abcdefghij'.repeat(100); // 1,000 chars, one pre-token: exact BPE is still fast here
    const cut = countText(word);
    const exact =
      countText(word.slice(0, 256)) +
      countText(word.slice(256, 512)) +
      countText(word.slice(512, 768)) +
      countText(word.slice(768));
    expect(cut).toBe(exact);
    const huge = 'QUJD'.repeat(25_000); // 100,000 chars of base64-like text
    const n = countText(huge);
    expect(n).toBeGreaterThan(huge.length / 10);
    expect(n).toBeLessThanOrEqual(huge.length / 2);
  });
});

describe('endAfterChunks', () => {
  it('ends the stream cleanly without the finish_reason chunk, the usage or [DONE]', async () => {
    llm.enqueue({ content: 'abcdefghij', chunkSize: 2, endAfterChunks: 3 });
    const res = await fetch(`${llm.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer test' },
      body: JSON.stringify({
        model: 'm',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const frames = text.split('\n\n').filter((f) => f.startsWith('data: '));
    expect(frames).toHaveLength(3);
    expect(text).not.toContain('[DONE]');
    expect(text).not.toMatch(/"finish_reason":"(stop|length|tool_calls)"/);
    expect(text).not.toContain('"prompt_tokens"');
  });
});
