import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  ConflictError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
} from 'openai';
import { isContextLimitError } from '@threadline/context';
import { errorMessage } from '@threadline/protocol';

export type ProviderErrorKind =
  'context_length' | 'rate_limit' | 'server' | 'network' | 'auth' | 'bad_request' | 'no_vision' | 'aborted';

/**
 * Every failure of the provider client, typed. `rawMessage` is the provider's own text (shown to the
 * user in the error notice); `retryAfterMs` is the wait the server asked for, when it did.
 */
export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status: number | null;
  readonly rawMessage: string;
  readonly retryAfterMs: number | null;
  /** `context_length_exceeded` for context errors, so generic classifiers recognise them too. */
  readonly code: string | null;
  /** How many attempts were made (1 = no retry). */
  attempts = 1;

  constructor(
    kind: ProviderErrorKind,
    rawMessage: string,
    opts: { status?: number | null; retryAfterMs?: number | null; cause?: unknown } = {},
  ) {
    // One sentence: what happened, then the provider's own words in parentheses.
    super(`${describeKind(kind)} (${errorDetail(opts.status ?? null, rawMessage)}).`, { cause: opts.cause });
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = opts.status ?? null;
    this.rawMessage = rawMessage;
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.code = kind === 'context_length' ? 'context_length_exceeded' : null;
  }

  /** The provider's words with the HTTP status, for a notice that says the rest itself. */
  get detail(): string {
    return errorDetail(this.status, this.rawMessage);
  }
}

/** "HTTP 401: Incorrect API key" — no trailing period, short enough for one line. */
function errorDetail(status: number | null, raw: string): string {
  const text = raw
    .trim()
    .replace(/[.:;\s]+$/, '')
    .slice(0, 300);
  return status ? `HTTP ${status}${text ? `: ${text}` : ''}` : text || 'no details';
}

/** The innermost cause's message: "connect ECONNREFUSED 127.0.0.1:9" rather than "fetch failed". */
function rootCauseMessage(err: unknown): string | null {
  let cur: unknown = err;
  let msg: string | null = null;
  for (let i = 0; i < 5 && cur instanceof Error; i++) {
    if (cur.message) msg = cur.message;
    cur = cur.cause;
  }
  return msg;
}

function describeKind(kind: ProviderErrorKind): string {
  switch (kind) {
    case 'context_length':
      return 'The conversation is too long for the model';
    case 'rate_limit':
      return 'The provider is rate limiting requests';
    case 'server':
      return 'The provider had a server error';
    case 'network':
      return 'Could not reach the provider';
    case 'auth':
      return 'The provider rejected the API key';
    case 'bad_request':
      return 'The provider rejected the request';
    case 'no_vision':
      return 'The model cannot read images';
    case 'aborted':
      return 'The request was cancelled';
  }
}

/**
 * The wait the server asked for (`retry-after-ms`, else `Retry-After` in seconds or as a date), read
 * as the SDK reads it, for the user's notice only: the SDK does the waiting. null when there is none
 * or it is beyond the SDK's one-minute limit (the SDK then backs off on its own).
 */
export function requestedWaitMs(headers: Headers | undefined | null, now = Date.now()): number | null {
  const ms = parseFloat(headers?.get('retry-after-ms') ?? '');
  const after = headers?.get('retry-after') ?? '';
  const wait = !Number.isNaN(ms)
    ? ms
    : after && !Number.isNaN(parseFloat(after))
      ? parseFloat(after) * 1000
      : Date.parse(after) - now;
  return Number.isFinite(wait) && wait >= 0 && wait <= 60_000 ? Math.round(wait) : null;
}

/** The provider's own text: the error body's message, or the body itself when it is a string. */
function rawText(err: APIError): string {
  const body: unknown = err.error;
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object') {
    const m = (body as { message?: unknown }).message;
    if (typeof m === 'string') return m;
    return JSON.stringify(body);
  }
  return err.message;
}

/**
 * A stream's body failing after its headers (a reset, a cut socket) is not wrapped by the SDK:
 * undici reports it as a TypeError ("terminated") with the socket error as its cause.
 */
function isBodyConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^(ECONN|EPIPE|ETIMEDOUT|UND_ERR)/.test(code)) return true;
  return err instanceof TypeError && /terminated|fetch failed|socket/i.test(err.message);
}

/** What kind of failure an SDK status error is, by its class (the SDK maps statuses to classes). */
function kindOf(err: APIError): ProviderErrorKind {
  if (err instanceof RateLimitError) return 'rate_limit';
  if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) return 'auth';
  // No status: an error event inside a 200 stream. 408/409 are the server's trouble, not the request's.
  if (
    err instanceof InternalServerError ||
    err instanceof ConflictError ||
    err.status === undefined ||
    err.status === 408
  )
    return 'server';
  return 'bad_request';
}

/** Maps anything the SDK or fetch throws to a ProviderError. */
export function classifyError(err: unknown, signal?: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err;
  if (signal?.aborted || err instanceof APIUserAbortError || (err instanceof Error && err.name === 'AbortError')) {
    return new ProviderError('aborted', 'Request was aborted.', { cause: err });
  }
  // Refused, reset, DNS, and APIConnectionTimeoutError (a subclass): the provider was not reached.
  if (err instanceof APIConnectionError || isBodyConnectionError(err)) {
    const text = err instanceof APIConnectionTimeoutError ? err.message : (rootCauseMessage(err) ?? String(err));
    return new ProviderError('network', text, { cause: err });
  }
  if (err instanceof APIError) {
    const opts = { status: err.status ?? null, retryAfterMs: requestedWaitMs(err.headers), cause: err };
    // One classifier for the whole app (SPEC §3.5 recovery): the engine's, fed the SDK error whole.
    const kind = isContextLimitError(err) ? 'context_length' : kindOf(err);
    return new ProviderError(kind, rawText(err), opts);
  }
  // Anything else (a malformed stream, an unexpected body) is the provider's fault, not ours to hide.
  return new ProviderError('server', errorMessage(err), { cause: err });
}

/** How providers word a refused image: OpenAI, OpenRouter, vLLM, Ollama, LM Studio, DeepSeek… */
const IMAGE_REFUSAL = /image|vision|multi-?modal|image_url|content part|unknown variant/i;

/**
 * A request that carried images and was refused for them (400/422 naming images) becomes
 * `no_vision`, so the user reads one sentence instead of the provider's error.
 */
export function asVisionRefusal(e: ProviderError, hadImages: boolean): ProviderError {
  if (!hadImages || e.kind !== 'bad_request' || !IMAGE_REFUSAL.test(e.rawMessage)) return e;
  return Object.assign(new ProviderError('no_vision', e.rawMessage, { status: e.status, cause: e }), {
    attempts: e.attempts,
  });
}
