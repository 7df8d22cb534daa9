import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { isContextLimitError } from '@threadline/context';

export type ProviderErrorKind =
  'context_length' | 'rate_limit' | 'server' | 'network' | 'auth' | 'bad_request' | 'aborted';

/**
 * Every failure of the provider client, typed. `rawMessage` is the provider's own text (shown to the
 * user in the error notice); `retryAfterMs` is what the server asked for, when it did.
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

  get retryable(): boolean {
    return this.kind === 'rate_limit' || this.kind === 'server' || this.kind === 'network';
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
    case 'aborted':
      return 'The request was cancelled';
  }
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; also OpenAI's `retry-after-ms`. */
export function parseRetryAfter(headers: Headers | undefined | null, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const v = headers.get('retry-after');
  if (v === null || v.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
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

/** Node's fetch reports resets and refused connections as TypeError('fetch failed'/'terminated'). */
function isNetworkish(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^(ECONN|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|UND_ERR)/.test(code)) return true;
  return err instanceof TypeError && /fetch failed|terminated|network|socket/i.test(err.message);
}

/** Maps anything the SDK or fetch throws to a ProviderError. */
export function classifyError(err: unknown, signal?: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err;
  if (signal?.aborted || err instanceof APIUserAbortError || (err instanceof Error && err.name === 'AbortError')) {
    return new ProviderError('aborted', 'Request was aborted.', { cause: err });
  }
  if (err instanceof APIConnectionError) {
    return new ProviderError('network', rootCauseMessage(err) ?? err.message, { cause: err });
  }
  if (err instanceof APIError) {
    const status = err.status;
    const text = rawText(err);
    const retryAfterMs = parseRetryAfter(err.headers);
    const opts = { status: status ?? null, retryAfterMs, cause: err };
    // One classifier for the whole app (SPEC §3.5 recovery): the engine's, fed the SDK error whole.
    if (isContextLimitError(err)) return new ProviderError('context_length', text, opts);
    if (status === undefined) return new ProviderError('server', text, opts); // an error event inside a stream
    if (status === 429) return new ProviderError('rate_limit', text, opts);
    if (status === 401 || status === 403) return new ProviderError('auth', text, opts);
    if (status === 408 || status === 409 || status >= 500) return new ProviderError('server', text, opts);
    return new ProviderError('bad_request', text, opts);
  }
  if (isNetworkish(err)) {
    return new ProviderError('network', rootCauseMessage(err) ?? String(err), { cause: err });
  }
  // Anything else (a malformed stream, an unexpected body) is the provider's fault, not ours to hide.
  return new ProviderError('server', err instanceof Error ? err.message : String(err), { cause: err });
}
