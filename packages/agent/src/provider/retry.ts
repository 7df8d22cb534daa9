import { APIError, APIConnectionError, APIConnectionTimeoutError, type ClientOptions } from 'openai';
import { ProviderError, classifyError } from './errors';

/** At most 3 retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 3;

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  /** Retries allowed in all ("attempt 2 of 3"). */
  maxRetries: number;
  /** The wait the server asked for; null when the SDK backs off on its own (a few seconds). */
  delayMs: number | null;
  /** Why the last attempt failed. */
  error: ProviderError;
}

type SdkFetch = NonNullable<ClientOptions['fetch']>;
type SdkLogger = NonNullable<ClientOptions['logger']>;

export interface AttemptObserver {
  fetch: SdkFetch;
  logger: SdkLogger;
  /** Requests sent so far (1 = no retry yet). */
  state: { attempts: number };
}

/** What failed in the SDK's last attempt, as it saw it. */
type Outcome = { status: number; headers: Headers; body: string } | { error: unknown } | null;

/**
 * Watches the SDK's own retries of one call, for the user's notices; the SDK decides and waits.
 * - `fetch` (the SDK's fetch option) counts the attempts and keeps the last failure's status and
 *   headers, or the connection error.
 * - `logger` hears the SDK's decision: it logs "… - retrying, N attempts remaining" at level info
 *   right before its wait, and only when it will retry. That one line is the only thing read from
 *   the text; the failure itself comes typed from `fetch`.
 * The SDK offers no retry hook, and a fetch alone sees a retry only after the wait is over.
 */
export function observeAttempts(maxRetries: number, onRetry: ((info: RetryInfo) => void) | undefined): AttemptObserver {
  let last: Outcome = null;
  const state = { attempts: 0 };
  const fetch: SdkFetch = async (input, init) => {
    state.attempts++;
    try {
      const res = await globalThis.fetch(input, init);
      if (res.ok) {
        last = null;
        return res;
      }
      // An error body is small: read it here so a notice can quote the provider; the SDK gets a copy.
      const body = await res.text();
      last = { status: res.status, headers: res.headers, body };
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (error) {
      last = { error };
      throw error;
    }
  };
  const failure = (): ProviderError =>
    classifyError(
      last && 'status' in last ? errorOf(last.status, last.headers, last.body) : connectionError(last?.error),
    );
  const retrying = /- retrying, \d+ attempts? remaining$/;
  const logger: SdkLogger = {
    info: (message) => {
      if (!onRetry || !retrying.test(message)) return;
      const error = failure();
      onRetry({ attempt: state.attempts, maxRetries, delayMs: error.retryAfterMs, error });
    },
    debug: () => undefined,
    // What the SDK would print by default stays on the console.
    warn: (...args) => console.warn(...args),
    error: (...args) => console.error(...args),
  };
  return { fetch, logger, state };
}

/** A failed fetch as the SDK reports it: its own timeout aborts the fetch (the user's abort is never retried). */
function connectionError(cause: unknown): APIConnectionError {
  if (cause instanceof Error && cause.name === 'AbortError') return new APIConnectionTimeoutError();
  return new APIConnectionError({ cause: cause instanceof Error ? cause : undefined });
}

/** The SDK's error for a status response, built as the SDK builds it. */
function errorOf(status: number, headers: Headers, body: string): APIError {
  try {
    return APIError.generate(status, JSON.parse(body) as object, undefined, headers);
  } catch {
    return APIError.generate(status, undefined, body || undefined, headers);
  }
}

/** A stream that failed after its headers but before anything reached the caller is ours to retry. */
export function canRetryStream(error: ProviderError, shown: boolean, attempts: number, maxRetries: number): boolean {
  return !shown && (error.kind === 'server' || error.kind === 'network') && attempts <= maxRetries;
}
