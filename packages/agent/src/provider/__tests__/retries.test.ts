// The SDK's retries, watched: real HTTP to fake-llm. Every retried fault carries `retry-after-ms: 0`
// (or `Retry-After: 0`), which the SDK honours, so no test waits for a backoff.
import { startFakeLlm, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError, createProviderClient, type ProviderClient, type RetryInfo } from '../index';
import { observeAttempts } from '../retry';

let llm: FakeLlm;
let client: ProviderClient;
let notices: RetryInfo[];
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm.close());
beforeEach(() => {
  llm.reset();
  notices = [];
  client = createProviderClient({ baseUrl: llm.url, model: 'm' }, 'sk-test');
});

const user = [{ role: 'user' as const, content: 'hello' }];
const onRetry = (i: RetryInfo): void => void notices.push(i);
const now = { 'retry-after-ms': '0' };
const fault = (status: number, headers: Record<string, string> = now, message?: string): FakeReply => ({
  error: { status, headers, ...(message ? { message } : {}) },
});
/** The SDK numbers its attempts in a header: who made each request. */
const retryCounts = () => llm.chatRequests().map((r) => r.headers['x-stainless-retry-count']);
const attemptsOf = (infos: RetryInfo[]) => infos.map((i) => `${i.attempt}/${i.maxRetries} ${i.error.kind}`);

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('the SDK retries requests', () => {
  it('retries a 429 with retry-after-ms and succeeds, with one notice per retry', async () => {
    llm.enqueue(fault(429, now, 'Rate limit reached for requests'), fault(429));
    const r = await client.streamChat({ messages: user, onRetry });
    expect(r.content).toBe('You said: hello');
    expect(r.attempts).toBe(3);
    expect(retryCounts()).toEqual(['0', '1', '2']); // the SDK's own retries, not ours
    expect(attemptsOf(notices)).toEqual(['1/3 rate_limit', '2/3 rate_limit']);
    expect(notices[0]!.delayMs).toBe(0);
    // The notice quotes the provider, as the final error would.
    expect(notices[0]!.error.message).toBe(
      'The provider is rate limiting requests (HTTP 429: Rate limit reached for requests).',
    );
  });

  it('a 429, then a 500, then success: the notices count the attempts the fetch saw', async () => {
    llm.enqueue(fault(429), fault(500));
    const r = await client.streamChat({ messages: user, onRetry });
    expect(r.content).toBe('You said: hello');
    expect(r.attempts).toBe(3);
    expect(llm.chatRequests()).toHaveLength(3);
    expect(attemptsOf(notices)).toEqual(['1/3 rate_limit', '2/3 server']);
  });

  it('honours Retry-After in seconds', async () => {
    llm.enqueue(fault(503, { 'retry-after': '0' }));
    expect(await client.complete({ messages: user, onRetry })).toBe('You said: hello');
    expect(retryCounts()).toEqual(['0', '1']);
    expect(attemptsOf(notices)).toEqual(['1/3 server']);
  });

  it('does not retry a 500 that says x-should-retry: false', async () => {
    llm.enqueue(fault(500, { ...now, 'x-should-retry': 'false' }));
    const err = await failure(client.streamChat({ messages: user, onRetry }));
    expect(err.kind).toBe('server');
    expect(err.attempts).toBe(1);
    expect(llm.chatRequests()).toHaveLength(1);
    expect(notices).toEqual([]);
  });

  it('retries a 400 that says x-should-retry: true', async () => {
    llm.enqueue(fault(400, { ...now, 'x-should-retry': 'true' }, 'try me again'));
    const r = await client.streamChat({ messages: user, onRetry });
    expect(r.content).toBe('You said: hello');
    expect(llm.chatRequests()).toHaveLength(2);
    expect(attemptsOf(notices)).toEqual(['1/3 bad_request']);
  });

  it('never retries a 401 (auth), a plain 400 (bad request) or a 403 (auth)', async () => {
    llm.enqueue(fault(401), fault(400, now, 'Invalid value for tools'), fault(403));
    expect((await failure(client.streamChat({ messages: user, onRetry }))).kind).toBe('auth');
    const bad = await failure(client.complete({ messages: user, onRetry }));
    expect(bad.kind).toBe('bad_request');
    expect(bad.message).toBe('The provider rejected the request (HTTP 400: Invalid value for tools).');
    expect((await failure(client.complete({ messages: user }))).kind).toBe('auth');
    expect(llm.chatRequests()).toHaveLength(3);
    expect(notices).toEqual([]);
  });

  it('gives up after 3 retries of a 500 with a clear server error', async () => {
    llm.enqueue(...Array.from({ length: 4 }, () => fault(500)));
    const err = await failure(client.streamChat({ messages: user, onRetry }));
    expect(err.kind).toBe('server');
    expect(err.status).toBe(500);
    expect(err.attempts).toBe(4);
    // One sentence: the kind, then the provider's words and status in parentheses.
    expect(err.message).toMatch(/^The provider had a server error \(HTTP 500: The server had an error[^)]*\)\.$/);
    expect(retryCounts()).toEqual(['0', '1', '2', '3']);
    expect(attemptsOf(notices)).toEqual(['1/3 server', '2/3 server', '3/3 server']);
  });

  it('takes the retry count from the options', async () => {
    llm.enqueue(fault(500), fault(500));
    const once = createProviderClient({ baseUrl: llm.url, model: 'm' }, null, { maxRetries: 1 });
    const err = await failure(once.complete({ messages: user, onRetry }));
    expect(err.attempts).toBe(2);
    expect(attemptsOf(notices)).toEqual(['1/1 server']);
  });

  it('retries a connection dropped before the headers, then succeeds', async () => {
    llm.enqueue({ content: 'never', dropAfterChunks: 0 });
    const r = await client.streamChat({ messages: user, onRetry });
    expect(r.content).toBe('You said: hello');
    expect(retryCounts()).toEqual(['0', '1']);
    expect(attemptsOf(notices)).toEqual(['1/3 network']);
  });

  it('reports an unreachable server as kind network after its retries', async () => {
    const dead = await startFakeLlm();
    const url = dead.url;
    await dead.close();
    // One retry: a refused connection has no Retry-After, so the SDK waits its own short backoff.
    const c = createProviderClient({ baseUrl: url, model: 'm' }, null, { maxRetries: 1 });
    const err = await failure(c.streamChat({ messages: user, onRetry }));
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/^Could not reach the provider \(connect ECONNREFUSED [^)]+\)\.$/);
    expect(err.attempts).toBe(2);
    expect(attemptsOf(notices)).toEqual(['1/1 network']);
    expect(notices[0]!.delayMs).toBeNull();
    expect(notices[0]!.error.message).toMatch(/ECONNREFUSED/);
  });

  it('says how long the server asked to wait, and stops waiting when cancelled', async () => {
    llm.enqueue(fault(429, { 'retry-after': '30' }));
    const ac = new AbortController();
    const r = await client.streamChat({
      messages: user,
      signal: ac.signal,
      onRetry: (i) => {
        notices.push(i);
        ac.abort(); // during the SDK's 30 s wait
      },
    });
    expect(r.aborted).toBe(true);
    expect(notices.map((i) => i.delayMs)).toEqual([30_000]);
    expect(llm.chatRequests()).toHaveLength(1);
  });
});

describe('a stream that fails after its headers', () => {
  it('is asked again while nothing was shown: cut without finish_reason', async () => {
    // Role chunk only, then a clean end: no text, no finish_reason, no [DONE].
    llm.enqueue({ content: 'never shown', endAfterChunks: 1 });
    const r = await client.streamChat({ messages: user, onRetry });
    expect(r.content).toBe('You said: hello');
    expect(r.finishReason).toBe('stop');
    expect(r.attempts).toBe(2);
    expect(attemptsOf(notices)).toEqual(['1/3 server']);
    expect(notices[0]!.delayMs).toBe(0);
    expect(notices[0]!.error.message).toMatch(/no finish_reason/);
  });

  it('is asked again while nothing was shown: socket dropped after the role chunk', async () => {
    llm.enqueue({ content: 'never shown', dropAfterChunks: 1 });
    const r = await client.streamChat({ messages: user, onRetry });
    expect(r.content).toBe('You said: hello');
    expect(attemptsOf(notices)).toEqual(['1/3 network']);
  });

  it('after text: a provider error carrying no retry, never a complete answer', async () => {
    llm.enqueue({ content: 'The first half of a long answer', chunkSize: 5, endAfterChunks: 3 });
    let shown = '';
    const err = await failure(client.streamChat({ messages: user, onDelta: (d) => (shown += d), onRetry }));
    expect(shown).toBe('The first '); // the role chunk, then two chunks of 5
    expect(err.kind).toBe('server');
    expect(err.message).toMatch(/ended before the provider finished/);
    expect(err.attempts).toBe(1);
    expect(llm.chatRequests()).toHaveLength(1);
    expect(notices).toEqual([]);
  });

  it('after text, a dropped socket is not retried either', async () => {
    llm.enqueue({ content: 'partial answer that dies', chunkSize: 4, dropAfterChunks: 3 });
    let shown = '';
    const err = await failure(client.streamChat({ messages: user, onDelta: (d) => (shown += d), onRetry }));
    expect(err.kind).toBe('network');
    expect(shown).toBe('partial ');
    expect(llm.chatRequests()).toHaveLength(1);
    expect(notices).toEqual([]);
  });

  it('shares one budget with the SDK: a 500, then cut streams, end after 3 retries in all', async () => {
    llm.enqueue(fault(500), ...Array.from({ length: 3 }, () => ({ content: 'x', endAfterChunks: 1 })));
    const err = await failure(client.streamChat({ messages: user, onRetry }));
    expect(err.attempts).toBe(4);
    expect(err.message).toMatch(/no finish_reason/);
    expect(llm.chatRequests()).toHaveLength(4);
    expect(attemptsOf(notices)).toEqual(['1/3 server', '2/3 server', '3/3 server']);
  });
});

describe('the observer of the SDK (its fetch option)', () => {
  const chat = (seen: ReturnType<typeof observeAttempts>, signal?: AbortSignal) =>
    seen.fetch(llm.url + '/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: user }),
      signal,
    });

  it('counts every attempt and tells each failure the SDK retries, within the budget', async () => {
    llm.enqueue(fault(500), fault(429), fault(500));
    const seen = observeAttempts(2, onRetry);
    expect((await chat(seen)).status).toBe(500);
    expect((await chat(seen)).status).toBe(429);
    // The third failure is past the 2 retries: the SDK gives up, so no notice.
    expect((await chat(seen)).status).toBe(500);
    expect(seen.state.attempts).toBe(3);
    expect(attemptsOf(notices)).toEqual(['1/2 server', '2/2 rate_limit']);
    // The SDK still reads the body the observer quoted.
    expect(notices[1]!.error.message).toMatch(/^The provider is rate limiting requests/);
  });

  it('says nothing of a success or of a failure the SDK does not retry', async () => {
    llm.enqueue(fault(400), fault(500, { 'x-should-retry': 'false' }));
    const seen = observeAttempts(3, onRetry);
    expect((await chat(seen)).status).toBe(400);
    expect((await chat(seen)).status).toBe(500);
    expect((await chat(seen)).status).toBe(200);
    expect(seen.state.attempts).toBe(3);
    expect(notices).toEqual([]);
  });

  it("reports the SDK's own timeout as a network retry, and the user's cancel as nothing", async () => {
    const timedOut = new AbortController();
    timedOut.abort(); // what the SDK's timeout does to a fetch
    const seen = observeAttempts(3, onRetry);
    await expect(chat(seen, timedOut.signal)).rejects.toThrow();
    expect(attemptsOf(notices)).toEqual(['1/3 network']);
    expect(notices[0]!.error.message).toBe('Could not reach the provider (Request timed out).');

    notices = [];
    const user = new AbortController();
    user.abort();
    const cancelled = observeAttempts(3, onRetry, user.signal);
    await expect(chat(cancelled, user.signal)).rejects.toThrow();
    expect(cancelled.state.attempts).toBe(1);
    expect(notices).toEqual([]);
  });
});
