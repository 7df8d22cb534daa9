// An input with bytes over HTTP (an attachment): multipart/form-data, read as it streams, within
// its limits, the bytes put back at their paths before the route's schema checks them. The
// server is the real one; the AppApi a double that keeps what reached it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type { AppApi, AttachmentAdded } from '@threadline/protocol';
import { EventHub } from '../eventHub';
import { startServer, type RunningServer } from '../server';
import { rpcBody } from './rpcBody';

const token = 'upload-token';
let srv: RunningServer;
let received: unknown[];

function apiDouble(): AppApi {
  const api: Partial<AppApi> = {
    'attachments.add': async (input) => {
      received.push(input);
      const ref: AttachmentAdded = {
        id: 'a1',
        kind: 'text',
        name: input.name,
        mime: input.mime,
        size: input.data.byteLength,
      };
      return ref;
    },
    'sessions.list': async () => [],
  };
  return api as AppApi;
}

beforeEach(async () => {
  received = [];
  srv = await startServer({
    api: apiDouble(),
    hub: new EventHub(),
    token,
    staticDir: null,
    uploadLimits: { partBytes: 64 * 1024, inputBytes: 1024, parts: 2, bodyBytes: 100 * 1024 },
  });
});
afterEach(async () => srv.close());

interface Answer {
  status: number;
  body: { ok: boolean; data?: unknown; error?: { code: string; message: string; details?: unknown } };
}

async function post(route: string, body: string | FormData, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${srv.port}/api/rpc/${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

const form = (input: unknown, parts: Record<string, Uint8Array | string>): FormData => {
  const f = new FormData();
  f.append('input', JSON.stringify(input));
  for (const [name, v] of Object.entries(parts)) f.append(name, new Blob([v as Uint8Array<ArrayBuffer>]));
  return f;
};

describe('an input with bytes over HTTP', () => {
  it('arrives with its bytes as bytes, at their paths (a thumbnail nested), checked by the route schema', async () => {
    const data = new Uint8Array(50_000).map((_, i) => i % 251);
    const thumb = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    const { body, headers } = rpcBody({
      name: 'a.png',
      mime: 'image/png',
      data,
      width: 2,
      height: 1,
      thumb: { mime: 'image/png', data: thumb },
    });
    expect(body).toBeInstanceOf(FormData);
    const got = await post('attachments.add', body, headers);
    expect(got).toMatchObject({ status: 200, body: { ok: true, data: { id: 'a1', size: 50_000 } } });
    const input = received[0] as { data: Uint8Array; thumb: { mime: string; data: Uint8Array }; width: number };
    expect(input.data).toBeInstanceOf(Uint8Array);
    expect(Buffer.compare(Buffer.from(input.data), Buffer.from(data))).toBe(0);
    expect(input.thumb.mime).toBe('image/png');
    expect([...input.thumb.data]).toEqual([...thumb]);
    expect(input.width).toBe(2);

    // The schema still decides: no bytes, or a string where bytes belong, is invalid input.
    const none = await post('attachments.add', JSON.stringify({ name: 'a', mime: 'text/plain', data: 'aGVsbG8=' }), {
      'content-type': 'application/json',
    });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'invalid_input', message: /^data: Expected bytes/ });
    expect(received).toHaveLength(1);
  });

  it('refuses a part over its limit (413) without calling the route, and answers the next call', async () => {
    const big = await post(
      'attachments.add',
      form({ name: 'big.txt', mime: 'text/plain' }, { data: new Uint8Array(64 * 1024 + 1) }),
    );
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({
      code: 'too_large',
      message: expect.stringMatching(/^Too large to send whole: /),
    });
    // The whole body over its limit, however it is split into parts.
    const many = await post(
      'attachments.add',
      form(
        { name: 'x', mime: 'text/plain' },
        { data: new Uint8Array(60 * 1024), 'thumb.data': new Uint8Array(60 * 1024) },
      ),
    );
    expect(many.status).toBe(413);
    expect(received).toHaveLength(0);
    expect((await post('sessions.list', '{}', { 'content-type': 'application/json' })).status).toBe(200);
  });

  it('refuses a body over its limit as it streams: the answer comes before the client has sent it all', async () => {
    // A client that would send 10 MB (the limit is 100 KB): the 413 arrives while it still sends.
    const answer = await new Promise<{ status: number; sentWhenAnswered: number }>((ok, ko) => {
      let sent = 0;
      const req = request(
        {
          host: '127.0.0.1',
          port: srv.port,
          path: '/api/rpc/attachments.add',
          method: 'POST',
          headers: {
            host: `127.0.0.1:${srv.port}`,
            authorization: `Bearer ${token}`,
            'content-type': 'multipart/form-data; boundary=b',
          },
        },
        (res) => {
          ok({ status: res.statusCode ?? 0, sentWhenAnswered: sent });
          res.resume();
          req.destroy();
        },
      );
      // (an error after the answer, the connection cut by req.destroy(), settles nothing)
      req.on('error', ko);
      req.write('--b\r\nContent-Disposition: form-data; name="data"; filename="f"\r\n\r\n');
      const chunk = Buffer.alloc(64 * 1024, 1);
      const pump = (): void => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end('\r\n--b--\r\n');
      };
      pump();
    });
    expect(answer.status).toBe(413);
    expect(answer.sentWhenAnswered).toBeLessThan(10 * 1024 * 1024);
    expect(received).toHaveLength(0);
  });

  it('refuses parts that do not name a field of the input, a second field, and a body without its input', async () => {
    const bad = async (f: FormData, message: RegExp) => {
      const r = await post('attachments.add', f);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(message) });
    };
    const input = { name: 'x', mime: 'text/plain' };
    const bytes = new Uint8Array([1, 2, 3]);
    await bad(form(input, { '__proto__.polluted': bytes }), /does not name a field/);
    await bad(form(input, { 'constructor.prototype': bytes }), /does not name a field/);
    await bad(form(input, { 'name.inner': bytes }), /not an object/);
    await bad(form({ ...input, data: 'text' }, { data: bytes }), /also in the JSON/);
    const noInput = new FormData();
    noInput.append('data', new Blob([bytes]));
    await bad(noInput, /no "input" part/);
    const notJson = new FormData();
    notJson.append('input', '{oops');
    await bad(notJson, /not valid JSON/);
    const second = form(input, { data: bytes });
    second.append('input', '{}');
    await bad(second, /Only one field/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(received).toHaveLength(0);
  });

  it('reads no body without the token', async () => {
    const res = await fetch(`http://127.0.0.1:${srv.port}/api/rpc/attachments.add`, {
      method: 'POST',
      body: form({ name: 'x', mime: 'text/plain' }, { data: new Uint8Array([1]) }),
    });
    expect(res.status).toBe(401);
    expect(received).toHaveLength(0);
  });
});
