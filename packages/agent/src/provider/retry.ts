import { APIError, APIConnectionError, APIConnectionTimeoutError, type ClientOptions } from 'openai';
import { ProviderError, classifyError } from './errors';

/** SPEC §7: at most 3 retries after the first attempt. */
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

export interface AttemptObserver {
  fetch: SdkFetch;
  /** Requests sent so far (1 = no retry yet). */
  state: { attempts: number };
}

/**
 * Whether the SDK retries a failed response: its rule (openai's `shouldRetry`, which it does not
 * export): `x-should-retry: true|false` decides when present, else 408, 409, 429 and 5xx retry.
 */
export function sdkRetriesStatus(status: number, headers: Headers): boolean {
  const header = headers.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Watches the SDK's own retries of one call, for the user's notices; the SDK decides and waits.
 * The SDK's `fetch` option counts the attempts, and a failed attempt the SDK will retry (its rule
 * above, within `maxRetries` retries in all) is told through `onRetry` before the fetch returns,
 * so the notice shows during the SDK's wait, never after it. A connection error is retried the
 * same way, unless the user's own `signal` stopped it.
 */
export function observeAttempts(
  maxRetries: number,
  onRetry: ((info: RetryInfo) => void) | undefined,
  signal?: AbortSignal,
): AttemptObserver {
  const state = { attempts: 0 };
  const willRetry = (): boolean => state.attempts <= maxRetries;
  const tell = (error: ProviderError): void => {
    onRetry?.({ attempt: state.attempts, maxRetries, delayMs: error.retryAfterMs, error });
  };
  const fetch: SdkFetch = async (input, init) => {
    state.attempts++;
    let res: Response;
    try {
      res = await globalThis.fetch(input, init);
    } catch (error) {
      if (!signal?.aborted && willRetry()) tell(classifyError(connectionError(error)));
      throw error;
    }
    if (res.ok) return res;
    // An error body is small: read it here so a notice can quote the provider; the SDK gets a copy.
    const body = await res.text();
    if (willRetry() && sdkRetriesStatus(res.status, res.headers))
      tell(classifyError(errorOf(res.status, res.headers, body)));
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch, state };
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
