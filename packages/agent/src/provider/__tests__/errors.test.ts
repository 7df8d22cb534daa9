import { isContextLimitError } from '@threadline/context';
import { startFakeLlm, type ErrorStyle, type FakeLlm } from '@threadline/fake-llm';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError, classifyError, createProviderClient, requestedWaitMs } from '../index';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

const client = () => createProviderClient({ baseUrl: llm.url, model: 'm' }, null);
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
    const c = createProviderClient({ baseUrl: llm.url, model: 'm' }, null, { maxRetries: 0 });
    const e = (await c.complete({ messages: big }).catch((x: unknown) => x)) as ProviderError;
    expect(e.kind).toBe('rate_limit');
    expect(isContextLimitError(e)).toBe(false);
  });
});

describe('classification by the SDK error classes', () => {
  const h = new Headers();
  it.each<[string, unknown, string]>([
    ['RateLimitError', new RateLimitError(429, undefined, 'slow down', h), 'rate_limit'],
    ['AuthenticationError', new AuthenticationError(401, undefined, 'bad key', h), 'auth'],
    ['PermissionDeniedError', new PermissionDeniedError(403, undefined, 'no', h), 'auth'],
    ['BadRequestError', new BadRequestError(400, undefined, 'bad', h), 'bad_request'],
    ['NotFoundError', new NotFoundError(404, undefined, 'no model', h), 'bad_request'],
    ['UnprocessableEntityError', new UnprocessableEntityError(422, undefined, 'no', h), 'bad_request'],
    ['ConflictError', new ConflictError(409, undefined, 'busy', h), 'server'],
    ['a 408', new APIError(408, undefined, 'timeout', h), 'server'],
    ['InternalServerError', new InternalServerError(502, undefined, 'bad gateway', h), 'server'],
    ['an error event in a stream', new APIError(undefined, { message: 'overloaded' }, undefined, h), 'server'],
    ['APIConnectionError', new APIConnectionError({ cause: new Error('connect ECONNREFUSED') }), 'network'],
    ['APIConnectionTimeoutError', new APIConnectionTimeoutError(), 'network'],
    ['APIUserAbortError', new APIUserAbortError(), 'aborted'],
    ['a body cut by undici', new TypeError('terminated', { cause: { code: 'UND_ERR_SOCKET' } }), 'network'],
    ['a malformed stream', new SyntaxError('Unexpected token'), 'server'],
  ])('%s → %s', (_name, err, kind) => {
    expect(classifyError(err).kind).toBe(kind);
  });

  it('keeps the server-asked wait and the root cause', () => {
    const e = classifyError(
      new RateLimitError(429, { message: 'quota' }, undefined, new Headers({ 'retry-after': '7' })),
    );
    expect(e).toMatchObject({ kind: 'rate_limit', status: 429, rawMessage: 'quota', retryAfterMs: 7000 });
    const refused = new APIConnectionError({
      cause: new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') }),
    });
    expect(classifyError(refused).message).toBe('Could not reach the provider (connect ECONNREFUSED 127.0.0.1:9).');
    const late = Object.assign(new APIConnectionTimeoutError(), { cause: new DOMException('aborted', 'AbortError') });
    expect(classifyError(late).message).toBe('Could not reach the provider (Request timed out).');
  });
});

describe('the wait a server asks for (for the notice; the SDK does the waiting)', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  it("reads retry-after-ms, then Retry-After seconds or date, up to the SDK's one-minute limit", () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(requestedWaitMs(h({ 'retry-after': '7' }), now)).toBe(7000);
    expect(requestedWaitMs(h({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(requestedWaitMs(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }), now)).toBe(10_000);
    expect(requestedWaitMs(h({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    // Past dates, nonsense and waits over a minute: the SDK uses its own backoff instead.
    expect(requestedWaitMs(h({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBeNull();
    expect(requestedWaitMs(h({ 'retry-after': 'soon' }), now)).toBeNull();
    expect(requestedWaitMs(h({ 'retry-after': '3600' }), now)).toBeNull();
    expect(requestedWaitMs(h({}), now)).toBeNull();
  });
});
