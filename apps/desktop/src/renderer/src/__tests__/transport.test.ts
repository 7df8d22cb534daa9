import { afterEach, describe, expect, it, vi } from 'vitest';
import { call, RpcError, setBridge } from '../transport';
import { createHttpBridge, parseSseData, takeToken } from '../transport/httpBridge';

describe('browser transport', () => {
  afterEach(() => {
    setBridge(null);
    vi.unstubAllGlobals();
    sessionStorage.clear();
  });

  it('takes the token from the URL, keeps it for the tab and removes it from the address bar', () => {
    window.history.replaceState(null, '', '/?token=s3cret&x=1#h');
    expect(takeToken()).toBe('s3cret');
    expect(window.location.search).toBe('?x=1');
    expect(window.location.hash).toBe('#h');
    // A reload has no token in the URL any more: it comes from sessionStorage.
    expect(takeToken()).toBe('s3cret');
  });

  it('posts to /api/rpc/<route> with the bearer token and returns the RpcResult', async () => {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ ok: true, data: [1] }), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const res = await createHttpBridge('tok').invoke('sessions.list', {});
    expect(res).toEqual({ ok: true, data: [1] });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/rpc/sessions.list');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
  });

  it('turns a non-JSON answer or a network failure into an error result', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('nope', { status: 401 })),
    );
    expect(await createHttpBridge('x').invoke('sessions.list', {})).toEqual({
      ok: false,
      error: { code: 'unauthorized', message: 'HTTP 401' },
    });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new Error('offline'))),
    );
    const res = await createHttpBridge('x').invoke('sessions.list', {});
    expect(res.ok).toBe(false);
  });

  it('keeps the issues of a refused input on the RpcError that call() throws', async () => {
    const error = {
      code: 'invalid_input',
      message: 'title: Too small: expected string to have >=1 characters',
      details: { issues: [{ path: ['title'], code: 'too_small', message: 'Too small' }] },
    };
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ ok: false, error }), { status: 400 })),
    );
    setBridge(createHttpBridge('tok'));
    const err = await call('sessions.rename', { id: 's1', title: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: 'invalid_input', message: error.message, details: error.details });
  });

  it('accepts only known event types from SSE data', () => {
    expect(parseSseData('{"type":"usage","sessionId":"s"}')?.type).toBe('usage');
    expect(parseSseData('{"type":"evil"}')).toBeNull();
    expect(parseSseData('not json')).toBeNull();
  });
});
