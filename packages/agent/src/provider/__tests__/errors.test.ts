import { isContextLimitError } from '@threadline/context';
import { startFakeLlm, type ErrorStyle, type FakeLlm } from '@threadline/fake-llm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError, createProviderClient, parseRetryAfter, retryDelay, DEFAULT_RETRY_POLICY } from '../index';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const client = () =>
  createProviderClient({ baseUrl: llm.url, model: 'm' }, null, { retry: { sleep: async () => undefined } });
const big = [{ role: 'user' as const, content: 'many words here '.repeat(50) }];

describe('context-length errors', () => {
  it.each<ErrorStyle>(['openai', 'anthropic', 'ollama', 'lmstudio'])(
    'classifies the %s body as kind context_length, without retry',
    async (style) => {
      llm.setContextWindow(100, style);
      try {
        const err = await client()
          .streamChat({ messages: big })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(err).toBeInstanceOf(ProviderError);
        const e = err as ProviderError;
        expect(e.kind).toBe('context_length');
        expect(e.status).toBe(400);
        expect(e.rawMessage).toMatch(/context|too long/i);
        expect(isContextLimitError(e)).toBe(true); // the turn loop's recovery recognises it
        expect(llm.chatRequests()).toHaveLength(1);
      } finally {
        llm.setContextWindow(null);
      }
    },
  );

  it('does not take a rate limit or a server error for a context error', async () => {
    llm.enqueue({
      error: { status: 429, message: 'You exceeded your current quota, please check your plan (tokens per min)' },
    });
    const c = createProviderClient({ baseUrl: llm.url, model: 'm' }, null, { retry: { maxRetries: 0 } });
    const e = (await c.complete({ messages: big }).catch((x: unknown) => x)) as ProviderError;
    expect(e.kind).toBe('rate_limit');
    expect(isContextLimitError(e)).toBe(false);
  });
});

describe('network errors', () => {
  it('reports an unreachable server as kind network after its retries', async () => {
    const dead = await startFakeLlm();
    const url = dead.url;
    await dead.close();
    let waited = 0;
    const c = createProviderClient({ baseUrl: url, model: 'm' }, null, { retry: { sleep: async () => void waited++ } });
    const e = (await c.streamChat({ messages: big }).catch((x: unknown) => x)) as ProviderError;
    expect(e.kind).toBe('network');
    expect(e.attempts).toBe(4);
    expect(waited).toBe(3);
  });
});

describe('Retry-After and backoff', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  it('parses seconds, HTTP dates and retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(h({ 'retry-after': '7' }), now)).toBe(7000);
    expect(parseRetryAfter(h({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfter(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }), now)).toBe(10_000);
    expect(parseRetryAfter(h({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(h({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }), now)).toBeNull();
    expect(parseRetryAfter(h({}), now)).toBeNull();
  });

  it('backs off exponentially with jitter, capped', () => {
    const err = new ProviderError('server', 'x');
    const at = (random: number, attempt: number) =>
      retryDelay({ ...DEFAULT_RETRY_POLICY, random: () => random, baseDelayMs: 1000, maxDelayMs: 5000 }, attempt, err);
    expect([1, 2, 3, 4].map((n) => at(0, n))).toEqual([500, 1000, 2000, 2500]);
    expect([1, 2, 3, 4].map((n) => at(1, n))).toEqual([1000, 2000, 4000, 5000]);
  });
});
