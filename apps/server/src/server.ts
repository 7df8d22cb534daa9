import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  errorMessage,
  ATTACHMENT_LIMITS,
  CHAT_TEXT_MAX,
  dispatchRoute,
  type AppApi,
  type ErrorCode,
  type RpcResult,
} from '@threadline/protocol';
import type { EventHub } from './eventHub';
import { checkHostAndOrigin, PAGE_CSP, requestToken, SECURITY_HEADERS, tokensEqual } from './security';
import { isMultipart, readUpload, type UploadLimits } from './upload';

export interface ServerOptions {
  api: AppApi;
  hub: EventHub;
  token: string;
  /** Built renderer (apps/desktop/out/web); null serves the API only. */
  staticDir: string | null;
  /** Used when `server` is not given; 0 or absent: a free port. */
  port?: number;
  /** An HTTP server already listening (listenLoopback), so the port is claimed before the rest starts. */
  server?: Server;
  /** Largest accepted JSON body (oversized input gets a clear message); default: chat.send's longest text. */
  maxBodyBytes?: number;
  /** Limits of a multipart body (a route input with bytes: upload.ts); default: one attachment's. */
  uploadLimits?: UploadLimits;
  heartbeatMs?: number;
  /**
   * An event stream whose unsent bytes exceed this is closed (default 4 MiB): a client that stopped
   * reading (a frozen tab, a suspended laptop) must not make the host buffer every event forever.
   * The renderer reconnects and reloads its state (messages.list, chat.state).
   */
  maxEventBufferBytes?: number;
}

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  busy: 409,
  provider_error: 502,
  internal: 500,
  too_large: 413,
};

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Browser mode's HTTP surface: RPC + SSE + the renderer's static files, on 127.0.0.1 only. */
export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  // The largest JSON body: chat.send's CHAT_TEXT_MAX characters (3 UTF-8 bytes a character at
  // most), with room for the JSON around them. Bytes (an attachment) come as multipart instead.
  const maxBody = opts.maxBodyBytes ?? CHAT_TEXT_MAX * 3 + 64 * 1024;
  const uploadLimits: UploadLimits = opts.uploadLimits ?? {
    partBytes: ATTACHMENT_LIMITS.fileMaxBytes,
    inputBytes: 64 * 1024,
    parts: 4,
    // The file, its thumbnail, the input, and the multipart framing around them.
    bodyBytes: ATTACHMENT_LIMITS.fileMaxBytes + ATTACHMENT_LIMITS.thumbMaxBytes + 128 * 1024,
  };
  const sockets = new Set<import('node:net').Socket>();
  let port = 0;

  const server = opts.server ?? (await listenLoopback(opts.port ?? 0));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, fail('internal', errorMessage(err)));
      else res.end();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    const forbidden = checkHostAndOrigin(req, port);
    if (forbidden) return sendJson(res, 403, fail('forbidden', forbidden));
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);

    if (url.pathname.startsWith('/api/')) {
      res.setHeader('Cache-Control', 'no-store');
      const isEvents = url.pathname === '/api/events';
      if (!tokensEqual(requestToken(req, url, isEvents), opts.token)) {
        return sendJson(res, 401, fail('unauthorized', 'Missing or wrong token. Open the URL printed at start-up.'));
      }
      if (isEvents && req.method === 'GET') return openEventStream(req, res);
      if (url.pathname.startsWith('/api/rpc/') && req.method === 'POST') {
        const route = decodePath(url.pathname.slice('/api/rpc/'.length));
        if (route === null) return sendJson(res, 400, fail('invalid_input', MALFORMED_PATH));
        return rpc(route, req, res);
      }
      return sendJson(res, 404, fail('not_found', `No such endpoint: ${req.method} ${url.pathname}`));
    }
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendJson(res, 405, fail('not_found', 'Method not allowed'));
    return serveStatic(url.pathname, res);
  }

  async function rpc(route: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (isMultipart(req.headers['content-type'])) {
      const upload = await readUpload(req, uploadLimits);
      if (!upload.ok)
        return sendJson(
          res,
          upload.status,
          fail(upload.status === 413 ? 'too_large' : 'invalid_input', upload.message),
        );
      const result = await dispatchRoute(opts.api, route, upload.input);
      return sendJson(res, result.ok ? 200 : STATUS[result.error.code], result);
    }
    const body = await readBody(req, maxBody);
    if (body === 'too_large') return sendJson(res, 413, fail('too_large', tooLargeSentence(maxBody)));
    let input: unknown = {};
    if (body.length > 0) {
      // A url-encoded form or text/plain is refused before parsing: only the app's own JSON (or
      // multipart, above) calls count.
      if (!isJsonContentType(req.headers['content-type']))
        return sendJson(
          res,
          415,
          fail(
            'invalid_input',
            'The request body must be JSON (Content-Type: application/json) or multipart/form-data.',
          ),
        );
      try {
        input = JSON.parse(body);
      } catch {
        return sendJson(res, 400, fail('invalid_input', 'Body is not valid JSON'));
      }
      // `null`, `[]`, `"x"` or `3` are not "no input": say so instead of reading them as {}.
      if (input === null || typeof input !== 'object' || Array.isArray(input))
        return sendJson(res, 400, fail('invalid_input', 'The request body must be a JSON object.'));
    }
    const result = await dispatchRoute(opts.api, route, input);
    sendJson(res, result.ok ? 200 : STATUS[result.error.code], result);
  }

  function openEventStream(req: IncomingMessage, res: ServerResponse): void {
    const maxBuffered = opts.maxEventBufferBytes ?? 4 * 1024 * 1024;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      unsubscribe();
      res.destroy();
    };
    const send = (chunk: string): void => {
      if (closed) return;
      // Backpressure: res.write never refuses, it buffers. Past the bound, drop the stream instead.
      if (res.writableLength > maxBuffered) return close();
      res.write(chunk);
    };
    const unsubscribe = opts.hub.subscribe((event) => send(`data: ${JSON.stringify(event)}\n\n`));
    const heartbeat = setInterval(() => send(': ping\n\n'), opts.heartbeatMs ?? 15_000);
    res.write(': connected\n\n');
    req.on('close', close);
    res.on('error', close);
  }

  async function serveStatic(pathname: string, res: ServerResponse): Promise<void> {
    if (!opts.staticDir) return sendJson(res, 404, fail('not_found', 'No renderer build'));
    const root = resolve(opts.staticDir);
    const decoded = decodePath(pathname);
    if (decoded === null) return sendJson(res, 400, fail('invalid_input', MALFORMED_PATH));
    const rel = normalize(decoded).replace(/^([/\\])+/, '');
    let file = resolve(join(root, rel || 'index.html'));
    if (file !== root && !file.startsWith(root + sep)) return sendJson(res, 403, fail('forbidden', 'Outside the app'));
    const info = await stat(file).catch(() => null);
    if (!info || info.isDirectory()) {
      // Single-page app: unknown paths without an extension get the shell page.
      if (extname(file)) return sendJson(res, 404, fail('not_found', 'Not found'));
      file = join(root, 'index.html');
    }
    const content = await readFile(file).catch(() => null);
    if (!content) {
      return sendJson(
        res,
        404,
        fail('not_found', 'The renderer is not built. Run: pnpm --filter @threadline/desktop build:web'),
      );
    }
    const type = MIME[extname(file)] ?? 'application/octet-stream';
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Security-Policy': PAGE_CSP,
      'Cache-Control': type.startsWith('text/html') ? 'no-store' : 'public, max-age=3600',
    });
    res.end(content);
  }

  port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}/?token=${opts.token}`,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

/**
 * An HTTP server listening on 127.0.0.1:port (0: a free one), with no handler yet. Browser mode
 * claims its port first, so a busy port fails (EADDRINUSE) before the data folder is opened.
 */
export async function listenLoopback(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((ok, ko) => {
    server.once('error', ko);
    // Loopback only, never 0.0.0.0: the agent runs shell commands.
    server.listen(port, '127.0.0.1', () => {
      server.off('error', ko);
      ok();
    });
  });
  return server;
}

const MALFORMED_PATH = 'The request path has malformed percent-encoding.';

/** decodeURIComponent without the URIError (a `%c0%ae` in the path is the client's mistake, not a 500). */
function decodePath(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** application/json, with or without parameters (charset); also the `+json` family. */
function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** The one sentence for a request over the limit (the renderer shows its own translation). */
export function tooLargeSentence(maxBytes: number): string {
  return `Too large to send whole: Threadline takes up to ${CHAT_TEXT_MAX.toLocaleString('en')} characters (${Math.floor(maxBytes / 1024 / 1024)} MB) in one message.`;
}

function fail(code: ErrorCode, message: string): RpcResult<never> {
  return { ok: false, error: { code, message } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

function readBody(req: IncomingMessage, max: number): Promise<string | 'too_large'> {
  return new Promise((ok, ko) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > max) {
        done = true;
        req.resume();
        ok('too_large');
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) ok(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', ko);
  });
}
