import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildAnswer, completionBody, streamChunks, type UsageStyle } from './completion';
import { contextLengthError, injectedError, type ErrorAnswer } from './errors';
import { handleControl } from './control';
import type { ServerState } from './state';
import { sendJson } from './http';
import { ReplyBook, buildRequestView } from './rules';
import { imagePartsOf } from './images';
import { PromptCache } from './promptCache';
import { Holds, type FakeHold } from './holds';
import { countPromptTokens } from './tokens';
import { strictProblem } from './strict';
import { answerLocal, localServerState, silentlyCut, windowFor, type LocalServerOptions } from './localServers';
import type { ChatRequestView, ErrorStyle, FakeAnswer, FakeReply, FakeRule, RecordedRequest } from './types';

export interface FakeLlmOptions {
  /** 0 (default) picks a free port. The server binds 127.0.0.1 only. */
  port?: number;
  rules?: FakeRule[];
  /** Answer when no rule matches (default: an echo "You said: …"; summary requests always get a summary). */
  defaultReply?: FakeReply | ((req: ChatRequestView) => FakeReply);
  /** Requests counted over this many prompt tokens get a context-length error. */
  contextWindow?: number | null;
  errorStyle?: ErrorStyle;
  /** The id listed by GET /v1/models (default "fake-model"). */
  model?: string;
  /** The ids GET /v1/models lists (default: `[model]`). */
  models?: string[];
  /**
   * Models that take no images: a request for one of them carrying an `image_url` part gets the
   * 400 OpenAI answers for a text-only model.
   */
  noVisionModels?: string[];
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  /** Default characters per streamed chunk (8) and pause per chunk in ms (0). */
  chunkSize?: number;
  delayMsPerChunk?: number;
  /** How usage names cached prompt tokens (default 'openai': prompt_tokens_details.cached_tokens). */
  usageStyle?: UsageStyle;
  /**
   * Emulate a local model server (localServers.ts): its own endpoints about the window it runs the
   * model with, and for Ollama the silent cut of a prompt over that window.
   */
  local?: LocalServerOptions;
  /**
   * Refuse, with the provider's own 400, every message shape a strict OpenAI-compatible provider
   * refuses (strict.ts: a tool call without its results, an orphan result, …). On by default:
   * whatever the app sends must be valid everywhere. `false` accepts anything, as a lax server does.
   */
  strict?: boolean;
}

export interface FakeLlm {
  /** Base URL ending in /v1, for the openai SDK's `baseURL`. */
  url: string;
  port: number;
  /** Every request received, oldest first (live array; chat requests only count toward `index`). */
  requests: RecordedRequest[];
  /** Chat completion requests only, with their parsed bodies. */
  chatRequests(): RecordedRequest[];
  setRules(rules: FakeRule[], defaultReply?: FakeReply | ((req: ChatRequestView) => FakeReply)): void;
  /** Replies answered first, one per request, whatever the request (fault queues). */
  enqueue(...replies: FakeReply[]): void;
  setContextWindow(window: number | null, style?: ErrorStyle): void;
  /** Strict message shapes on or off (see FakeLlmOptions.strict). */
  setStrict(strict: boolean): void;
  /** Chat requests refused for their shape (strict mode), oldest first. */
  rejectedRequests(): RecordedRequest[];
  /** What GET /v1/models lists from now on. */
  setModels(models: string[]): void;
  /**
   * Keeps chat requests that `match` from being answered until `release()` (held requests count as
   * in flight): to see requests overlap, or stop a run while they wait, without timing.
   */
  hold(match: (req: ChatRequestView) => boolean): FakeHold;
  /** Forget rules, queue and recorded requests (and release every hold). */
  reset(): void;
  close(): Promise<void>;
}

const hrMs = (): number => {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendError(res: ServerResponse, e: ErrorAnswer, param?: string): void {
  const body = e.body as { error?: Record<string, unknown> };
  if (param !== undefined && body.error) body.error['param'] = param;
  sendJson(res, e.status, e.body, e.headers);
}

const isError = (r: FakeReply): r is Extract<FakeReply, { error: unknown }> => 'error' in r && r.error !== undefined;

export async function startFakeLlm(opts: FakeLlmOptions = {}): Promise<FakeLlm> {
  const state: ServerState = {
    book: new ReplyBook(opts.defaultReply),
    requests: [],
    contextWindow: opts.contextWindow ?? null,
    errorStyle: opts.errorStyle ?? 'openai',
    chatCount: 0,
    models: opts.models ?? [opts.model ?? 'fake-model'],
    noVisionModels: opts.noVisionModels ?? [],
    cache: new PromptCache(),
    strict: opts.strict ?? true,
    local: opts.local ? localServerState(opts.local) : null,
    holds: new Holds(),
    inFlight: 0,
  };
  state.book.setRules(opts.rules ?? []);

  async function answerChat(
    req: IncomingMessage,
    res: ServerResponse,
    rec: RecordedRequest,
    raw: string,
  ): Promise<void> {
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as { messages?: unknown }).messages))
        throw new Error('shape');
      body = parsed as Record<string, unknown>;
      rec.body = body;
    } catch {
      return sendError(
        res,
        injectedError({
          status: 400,
          message: "We could not parse the JSON body of your request, or 'messages' is missing.",
        }),
      );
    }
    let view0 = buildRequestView(body, 0, state.chatCount++);
    // Ollama runs the model with its num_ctx and drops, silently, the oldest messages that do not fit.
    if (state.local?.options.kind === 'ollama') {
      const cut = silentlyCut(view0.messages, view0.tools, windowFor(state.local, view0.model));
      if (cut) {
        rec.silentlyDropped = cut.dropped;
        view0 = { ...view0, messages: cut.messages };
      }
    }
    const promptTokens = countPromptTokens(view0.messages, view0.tools);
    const view: ChatRequestView = { ...view0, promptTokens };
    rec.promptTokens = promptTokens;
    // In flight from here until the answer ends or the client leaves.
    rec.concurrent = ++state.inFlight;
    res.once('close', () => (state.inFlight -= 1));
    await state.holds.wait(view, (gone) => res.once('close', gone));
    if (res.destroyed) return;
    rec.isSummaryRequest = view.isSummaryRequest;
    const images = imagePartsOf(view.messages);
    if (images.length > 0) rec.images = images;

    // Faults queued by a test come before everything, like a rate limiter in front of the model.
    const queued = state.book.takeQueued();
    if (queued && isError(queued)) return sendError(res, injectedError(queued.error));
    // A provider validates the request's shape before it reads it.
    const problem = state.strict ? strictProblem(view.messages) : null;
    if (problem) {
      rec.rejected = problem.message;
      return sendError(
        res,
        injectedError({ status: 400, message: problem.message, type: 'invalid_request_error', code: null }),
        problem.param,
      );
    }
    if (!queued && state.contextWindow !== null && promptTokens > state.contextWindow) {
      return sendError(res, contextLengthError(state.errorStyle, state.contextWindow, promptTokens));
    }
    if (images.length > 0 && state.noVisionModels.includes(view.model))
      return sendError(
        res,
        injectedError({
          status: 400,
          message: 'Invalid content type. image_url is only supported by certain models.',
          code: 'invalid_request_error',
        }),
      );
    const reply = queued ?? state.book.pick(view);
    if (isError(reply)) return sendError(res, injectedError(reply.error));
    // Only a request the model answers is cached (an error answer reads nothing).
    const cached = state.cache.lookup(view.model, view.tools, view.messages);
    await sendAnswer(req, res, rec, view, reply, cached);
  }

  async function sendAnswer(
    req: IncomingMessage,
    res: ServerResponse,
    rec: RecordedRequest,
    view: ChatRequestView,
    answer: FakeAnswer,
    cached: number,
  ): Promise<void> {
    const built = buildAnswer(view, answer, cached, opts.usageStyle);
    rec.usage = {
      prompt_tokens: built.usage.prompt_tokens,
      completion_tokens: built.usage.completion_tokens,
      cached_tokens: cached,
    };
    const drop = answer.dropAfterChunks;
    if (!view.stream) {
      if (drop !== undefined) return void req.socket.destroy();
      if (answer.delayMsPerChunk) await sleep(answer.delayMsPerChunk);
      return sendJson(res, 200, completionBody(built));
    }
    const chunks = streamChunks(built, answer.chunkSize ?? opts.chunkSize ?? 8, view.includeUsage);
    if (drop === 0) return void req.socket.destroy();
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const delay = answer.delayMsPerChunk ?? opts.delayMsPerChunk ?? 0;
    // The last frames are the finish reason (and the usage): a cut stream never reaches them.
    const body = view.includeUsage ? chunks.length - 2 : chunks.length - 1;
    const cut = answer.endAfterChunks !== undefined ? Math.min(answer.endAfterChunks, body) : null;
    for (let i = 0; i < chunks.length; i++) {
      if (cut !== null && i >= cut) return void res.end();
      if (res.destroyed) return; // the client went away (abort)
      if (drop !== undefined && i >= drop) return void req.socket.destroy();
      if (delay > 0) await sleep(delay);
      if (res.destroyed) return;
      const frame = `data: ${JSON.stringify(chunks[i])}\n\n`;
      // Before a planned drop, wait until each frame is on the wire, or the destroy would discard it.
      if (drop !== undefined) await new Promise<void>((r) => res.write(frame, () => r()));
      else res.write(frame);
    }
    res.end('data: [DONE]\n\n');
  }

  const server = createServer((req, res) => {
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: { ...req.headers },
      body: undefined,
      receivedAt: Date.now(),
      receivedAtHrMs: hrMs(),
      clientClosed: false,
    };
    state.requests.push(rec);
    res.on('finish', () => (rec.status = res.statusCode));
    res.on('close', () => {
      if (!res.writableFinished) rec.clientClosed = true;
    });
    void (async () => {
      const raw = await readBody(req);
      const path = (req.url ?? '/').split('?')[0]!;
      if (path.startsWith('/_fake/')) return handleControl(state, path, req.method ?? 'GET', raw, res);
      if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
        return sendError(res, injectedError({ status: 401 }));
      }
      if (req.method === 'POST' && path === '/v1/chat/completions') return answerChat(req, res, rec, raw);
      if (req.method === 'GET' && path === '/v1/models') {
        const vllm = state.local?.options.kind === 'vllm' ? state.local.options : null;
        return sendJson(res, 200, {
          object: 'list',
          data: [...state.models, ...(state.local?.created.keys() ?? [])].map((id) => ({
            id,
            object: 'model',
            created: 1_700_000_000,
            owned_by: vllm ? 'vllm' : 'fake-llm',
            ...(vllm ? { root: id, parent: null, max_model_len: vllm.numCtx } : {}),
          })),
        });
      }
      if (state.local) {
        try {
          rec.body = raw.length > 0 ? (JSON.parse(raw) as unknown) : undefined;
        } catch {
          rec.body = undefined;
        }
        if (answerLocal(state.local, state.models, req.method ?? 'GET', path, raw, res)) return;
      }
      return sendError(
        res,
        injectedError({ status: 404, message: `Unknown request URL: ${req.method} ${path}.`, code: 'unknown_url' }),
      );
    })().catch((err: unknown) => {
      if (!res.headersSent) sendError(res, injectedError({ status: 500, message: `fake-llm crashed: ${String(err)}` }));
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests: state.requests,
    chatRequests: () => state.requests.filter((r) => r.path.startsWith('/v1/chat/completions')),
    setRules: (rules, defaultReply) => state.book.setRules(rules, defaultReply),
    enqueue: (...replies) => state.book.enqueue(replies),
    setModels: (models) => {
      state.models = [...models];
    },
    setStrict: (strict) => {
      state.strict = strict;
    },
    rejectedRequests: () => state.requests.filter((r) => r.rejected !== undefined),
    setContextWindow: (window, style) => {
      state.contextWindow = window;
      if (style) state.errorStyle = style;
    },
    hold: (match) => state.holds.add(match),
    reset: () => {
      state.holds.releaseAll();
      state.book.clear();
      state.requests.length = 0;
      state.chatCount = 0;
      state.cache.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        state.holds.releaseAll();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
