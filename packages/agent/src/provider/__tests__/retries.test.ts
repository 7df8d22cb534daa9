import { startFakeLlm, type FakeLlm } from '@threadline/fake-llm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError, createProviderClient, type ProviderClient, type RetryInfo } from '../index';

let llm: FakeLlm;
let waits: number[];
let client: ProviderClient;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm.close());
beforeEach(() => {
  llm.reset();
  waits = [];
  // Injected sleep and random: the test sees every wait and runs without waiting.
  client = createProviderClient({ baseUrl: llm.url, model: 'm' }, 'sk-test', {
    retry: { sleep: async (ms) => void waits.push(ms), random: () => 0.5, baseDelayMs: 1000 },
  });
});

const user = [{ role: 'user' as const, content: 'hello' }];
async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('retries', () => {
  it('waits the Retry-After seconds of a 429 and then succeeds', async () => {
    llm.enqueue({ error: { status: 429, retryAfter: 2 } }, { error: { status: 429, retryAfter: 5 } });
    const r = await client.streamChat({ messages: user });
    expect(r.content).toBe('You said: hello');
    expect(r.attempts).toBe(3);
    expect(waits).toEqual([2000, 5000]);
    expect(llm.chatRequests()).toHaveLength(3); // the SDK's own retries are off: every request is ours
  });

  it('honours a Retry-After given as an HTTP date', async () => {
    // 50 s ahead (under the one-minute cap; the wait is injected): the bounds leave 20 s for the
    // request itself, however busy the machine is.
    llm.enqueue({ error: { status: 503, retryAfter: new Date(Date.now() + 50_000).toUTCString() } });
    await client.complete({ messages: user });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(29_000);
    expect(waits[0]).toBeLessThanOrEqual(50_000);
  });

  it('gives up after 3 retries of a 500 with a clear server error', async () => {
    llm.enqueue(...Array.from({ length: 4 }, () => ({ error: { status: 500 } })));
    const err = await failure(client.streamChat({ messages: user }));
    expect(err.kind).toBe('server');
    expect(err.status).toBe(500);
    expect(err.attempts).toBe(4);
    // One sentence: the kind, then the provider's words and status in parentheses.
    expect(err.message).toMatch(/^The provider had a server error \(HTTP 500: The server had an error[^)]*\)\.$/);
    expect(llm.chatRequests()).toHaveLength(4);
    // exponential backoff with jitter: base·2^n, half fixed + half random (random = 0.5)
    expect(waits).toEqual([750, 1500, 3000]);
  });

  it('retries a dropped connection as a network error', async () => {
    llm.enqueue({ content: 'never', dropAfterChunks: 0 });
    const infos: RetryInfo[] = [];
    const r = await client.streamChat({ messages: user, onRetry: (i) => infos.push(i) });
    expect(r.content).toBe('You said: hello');
    expect(infos).toHaveLength(1);
    expect(infos[0]!.error.kind).toBe('network');
  });

  it('does not retry a stream that already showed text, unless the caller handles onRetry', async () => {
    llm.enqueue({ content: 'partial answer that dies', chunkSize: 4, dropAfterChunks: 3 });
    const shown: string[] = [];
    const err = await failure(client.streamChat({ messages: user, onDelta: (t) => shown.push(t) }));
    expect(err.kind).toBe('network');
    expect(shown.join('')).toBe('partial ');
    expect(llm.chatRequests()).toHaveLength(1);

    llm.enqueue({ content: 'partial answer that dies', chunkSize: 4, dropAfterChunks: 3 });
    let text = '';
    const r = await client.streamChat({
      messages: user,
      onDelta: (t) => (text += t),
      onRetry: (i) => {
        expect(i.partialDiscarded).toBe(true);
        text = '';
      },
    });
    expect(text).toBe('You said: hello');
    expect(r.content).toBe('You said: hello');
  });

  it('never retries a bad request, a context error or an auth error', async () => {
    llm.enqueue({ error: { status: 400, message: 'Invalid value for tools' } });
    expect((await failure(client.complete({ messages: user }))).kind).toBe('bad_request');
    llm.enqueue({ error: { status: 401 } });
    expect((await failure(client.complete({ messages: user }))).kind).toBe('auth');
    expect(llm.chatRequests()).toHaveLength(2);
    expect(waits).toEqual([]);
  });

  it('does not wait out a Retry-After longer than a minute', async () => {
    llm.enqueue({ error: { status: 429, retryAfter: 3600 } });
    const err = await failure(client.streamChat({ messages: user }));
    expect(err.kind).toBe('rate_limit');
    expect(err.retryAfterMs).toBe(3_600_000);
    expect(waits).toEqual([]);
  });

  it('stops waiting and reports aborted when cancelled during a backoff', async () => {
    const ac = new AbortController();
    const c = createProviderClient({ baseUrl: llm.url, model: 'm' }, null, {
      retry: {
        sleep: async () => {
          ac.abort();
        },
      },
    });
    llm.enqueue({ error: { status: 500 } });
    const r = await c.streamChat({ messages: user, signal: ac.signal });
    expect(r.aborted).toBe(true);
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('a stream that ends without finish_reason is retried while nothing was streamed', async () => {
    // Role chunk only, then a clean end: no text, no finish_reason, no [DONE].
    llm.enqueue({ content: 'never shown', endAfterChunks: 1 });
    const r = await client.streamChat({ messages: user });
    expect(r.content).toBe('You said: hello');
    expect(r.finishReason).toBe('stop');
    expect(r.attempts).toBe(2);
    expect(waits).toHaveLength(1);
  });

  it('a stream cut after text is a provider error carrying no retry, never a complete answer', async () => {
    llm.enqueue({ content: 'The first half of a long answer', chunkSize: 5, endAfterChunks: 3 });
    let shown = '';
    const err = await failure(client.streamChat({ messages: user, onDelta: (d) => (shown += d) }));
    expect(shown).toBe('The first '); // the role chunk, then two chunks of 5
    expect(err.kind).toBe('server');
    expect(err.message).toMatch(/ended before the provider finished/);
    expect(err.attempts).toBe(1);
    expect(llm.chatRequests()).toHaveLength(1);
  });

  it('four cut streams in a row exhaust the retry policy with a clear error', async () => {
    llm.enqueue(...Array.from({ length: 4 }, () => ({ content: 'x', endAfterChunks: 1 })));
    const err = await failure(client.streamChat({ messages: user }));
    expect(err.attempts).toBe(4);
    expect(err.message).toMatch(/no finish_reason/);
  });
});
