import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { AppError, type AppApi, type AppEvent, type SessionSummary } from '@threadline/protocol';
import { EventHub } from '../eventHub';
import { startServer, type RunningServer } from '../server';

// The transport is tested here against a small in-memory AppApi double; the real runtime is
// exercised over this same server by realRuntime.test.ts (every route) and the e2e specs.
function apiDouble(): AppApi {
  const sessions: SessionSummary[] = [];
  const api: Partial<AppApi> = {
    'sessions.list': async () => sessions,
    'sessions.create': async ({ title }) => {
      const s = {
        id: `s${sessions.length + 1}`,
        title: title ?? 'New',
        createdAt: 1,
        updatedAt: 1,
        messageCount: 0,
        workingFolder: '/home/u/Threadline',
      };
      sessions.push(s);
      return s;
    },
    'sessions.rename': async ({ id }) => {
      throw new AppError('not_found', `No session ${id}`);
    },
  };
  return api as AppApi;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((ok, ko) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'GET',
        headers: { host: `127.0.0.1:${port}`, ...opts.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', ko);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

describe('browser-mode server', () => {
  let srv: RunningServer;
  let hub: EventHub;
  const token = 'test-token-123';
  let staticDir: string;
  const auth = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

  beforeEach(async () => {
    staticDir = mkdtempSync(join(tmpdir(), 'tl-static-'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Threadline</title>');
    hub = new EventHub();
    srv = await startServer({ api: apiDouble(), hub, token, staticDir, maxBodyBytes: 1024, heartbeatMs: 50 });
  });
  afterEach(async () => srv.close());

  it('listens on 127.0.0.1 only and prints a URL with the token', () => {
    expect((srv.server.address() as AddressInfo).address).toBe('127.0.0.1');
    expect(srv.url).toBe(`http://127.0.0.1:${srv.port}/?token=${token}`);
  });

  it('answers 401 without the token or with a wrong one', async () => {
    const none = await call(srv.port, '/api/rpc/sessions.list', { method: 'POST', body: '{}' });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    const wrong = await call(srv.port, '/api/rpc/sessions.list', {
      method: 'POST',
      body: '{}',
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
    // RPC does not accept the token in the query string (only the event stream does).
    const query = await call(srv.port, `/api/rpc/sessions.list?token=${token}`, { method: 'POST', body: '{}' });
    expect(query.status).toBe(401);
  });

  it('answers 403 for a foreign Host (DNS rebinding) or Origin (CSRF), even with the token', async () => {
    const host = await call(srv.port, '/api/rpc/sessions.list', {
      method: 'POST',
      body: '{}',
      headers: { ...auth(), host: `evil.example:${srv.port}` },
    });
    expect(host.status).toBe(403);
    const origin = await call(srv.port, '/api/rpc/sessions.list', {
      method: 'POST',
      body: '{}',
      headers: { ...auth(), origin: 'http://evil.example' },
    });
    expect(origin.status).toBe(403);
    const page = await call(srv.port, '/', { headers: { host: 'attacker.test' } });
    expect(page.status).toBe(403);
    const own = await call(srv.port, '/api/rpc/sessions.list', {
      method: 'POST',
      body: '{}',
      headers: { ...auth(), origin: `http://localhost:${srv.port}` },
    });
    expect(own.status).toBe(200);
  });

  it('validates input (400), reports unknown routes (404) and maps AppErrors', async () => {
    const bad = await call(srv.port, '/api/rpc/sessions.rename', {
      method: 'POST',
      body: '{"id":"x"}',
      headers: auth(),
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.message).toMatch(/title/);
    // The zod issues travel as data: a form can mark the field by its path.
    expect(JSON.parse(bad.body).error.details).toEqual({
      issues: [{ path: ['title'], code: 'invalid_type', message: expect.any(String) }],
    });
    const nested = await call(srv.port, '/api/rpc/sessions.create', {
      method: 'POST',
      body: '{"title":"ok","workingFolder":"relative/path"}',
      headers: auth(),
    });
    expect(nested.status).toBe(400);
    expect(JSON.parse(nested.body).error.details.issues).toEqual([
      { path: ['workingFolder'], code: 'custom', message: 'must be an absolute path or start with ~' },
    ]);
    const notJson = await call(srv.port, '/api/rpc/sessions.list', { method: 'POST', body: '{oops', headers: auth() });
    expect(notJson.status).toBe(400);
    const unknown = await call(srv.port, '/api/rpc/nope.route', { method: 'POST', body: '{}', headers: auth() });
    expect(unknown.status).toBe(404);
    const missing = await call(srv.port, '/api/rpc/sessions.rename', {
      method: 'POST',
      body: '{"id":"x","title":"t"}',
      headers: auth(),
    });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ ok: false, error: { code: 'not_found', message: 'No session x' } });
    const huge = await call(srv.port, '/api/rpc/sessions.create', {
      method: 'POST',
      body: JSON.stringify({ title: 'x'.repeat(5000) }),
      headers: auth(),
    });
    expect(huge.status).toBe(413);
    // The one sentence the renderer also says (in the user's language) for a text over the limit.
    expect(JSON.parse(huge.body).error).toMatchObject({ code: 'too_large', message: /^Too large to send whole: / });
  });

  it('answers malformed percent-encoding, non-object bodies and non-JSON types in the one error shape', async () => {
    const shape = (r: Reply, status: number, message: RegExp): void => {
      expect(r.status).toBe(status);
      expect(r.headers['content-type']).toMatch(/application\/json/);
      const body = JSON.parse(r.body) as { ok: boolean; error: { code: string; message: string } };
      expect(body).toEqual({ ok: false, error: { code: 'invalid_input', message: expect.stringMatching(message) } });
    };
    shape(await call(srv.port, '/%c0%ae'), 400, /percent-encoding/);
    shape(
      await call(srv.port, '/api/rpc/sessions.%E0%A4%A', { method: 'POST', body: '{}', headers: auth() }),
      400,
      /percent-encoding/,
    );
    for (const body of ['null', '[]', '"x"', '3', 'true']) {
      shape(
        await call(srv.port, '/api/rpc/sessions.create', { method: 'POST', body, headers: auth() }),
        400,
        /JSON object/,
      );
    }
    // (multipart/form-data is read as an input with bytes: upload.test.ts)
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const r = await call(srv.port, '/api/rpc/sessions.create', {
        method: 'POST',
        body: '{"title":"x"}',
        headers: { ...auth(), 'content-type': type },
      });
      shape(r, 415, /Content-Type: application\/json/);
    }
    const noType = await call(srv.port, '/api/rpc/sessions.create', {
      method: 'POST',
      body: '{"title":"x"}',
      headers: { authorization: `Bearer ${token}` },
    });
    shape(noType, 415, /JSON/);
    // JSON with a charset, and an empty body (no input), still work.
    const charset = await call(srv.port, '/api/rpc/sessions.create', {
      method: 'POST',
      body: '{"title":"Hi"}',
      headers: { ...auth(), 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(200);
    const empty = await call(srv.port, '/api/rpc/sessions.list', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(empty.status).toBe(200);
  });

  it('runs a route and answers {ok:true,data}', async () => {
    const res = await call(srv.port, '/api/rpc/sessions.create', {
      method: 'POST',
      body: '{"title":"Hello"}',
      headers: auth(),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ ok: true, data: { id: 's1', title: 'Hello' } });
  });

  it('streams events over SSE with the token in the query, and refuses without it', async () => {
    const refused = await call(srv.port, '/api/events');
    expect(refused.status).toBe(401);
    const event: AppEvent = { type: 'error', sessionId: null, code: 'x', message: 'hello' };
    const received = await new Promise<string>((ok, ko) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: srv.port,
          path: `/api/events?token=${token}`,
          headers: { host: `127.0.0.1:${srv.port}` },
        },
        (res) => {
          expect(res.headers['content-type']).toMatch(/text\/event-stream/);
          let buf = '';
          res.on('data', (c) => {
            buf += c;
            if (buf.includes('data: ')) {
              req.destroy();
              ok(buf);
            }
          });
          // The stream subscribes before its first byte (its headers): publish on the response.
          hub.publish(event);
        },
      );
      req.on('error', (e) => (String(e).includes('socket hang up') ? undefined : ko(e)));
      req.end();
    });
    const line = received.split('\n').find((l) => l.startsWith('data: '));
    expect(JSON.parse(line!.slice(6))).toEqual(event);
  });

  it('closes the event stream of a client that stopped reading instead of buffering without limit', async () => {
    const slow = await startServer({
      api: apiDouble(),
      hub,
      token,
      staticDir: null,
      maxEventBufferBytes: 256 * 1024,
      heartbeatMs: 60_000,
    });
    try {
      // A raw client that sends the request and then never reads a byte.
      const sock = connect(slow.port, '127.0.0.1');
      await new Promise<void>((ok) => sock.once('connect', () => ok()));
      sock.write(`GET /api/events?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${slow.port}\r\n\r\n`);
      sock.pause();
      await vi.waitFor(() => expect(hub.size).toBeGreaterThan(0), { timeout: 20_000, interval: 5 });
      const big: AppEvent = { type: 'error', sessionId: null, code: 'x', message: 'y'.repeat(64 * 1024) };
      // Once the kernel's socket buffers are full, the server's own buffer grows past the bound.
      let sent = 0;
      while (hub.size > 0 && sent < 2000) {
        hub.publish(big);
        sent++;
        if (sent % 16 === 0) await new Promise((r) => setImmediate(r));
      }
      expect(hub.size).toBe(0);
      expect(sent).toBeLessThan(2000);
      sock.destroy();
      // Other clients are unaffected: a new stream still opens.
      const again = await new Promise<number>((ok, ko) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: slow.port,
            path: `/api/events?token=${token}`,
            headers: { host: `127.0.0.1:${slow.port}` },
          },
          (res) => {
            ok(res.statusCode ?? 0);
            req.destroy();
          },
        );
        req.on('error', (e) => (String(e).includes('socket hang up') ? undefined : ko(e)));
        req.end();
      });
      expect(again).toBe(200);
    } finally {
      await slow.close();
    }
  });

  it('serves the renderer with a strict CSP and refuses paths outside it', async () => {
    const page = await call(srv.port, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-eval/);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const escape = await call(srv.port, '/..%2f..%2fetc%2fpasswd');
    // Either refused or answered with the app shell: never a file outside the build.
    expect(escape.body).not.toMatch(/root:/);
    if (escape.status === 200) expect(escape.body).toContain('<title>Threadline</title>');
  });
});
