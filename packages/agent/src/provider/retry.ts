import { ProviderError, classifyError } from './errors';

export interface RetryPolicy {
  /** Retries after the first attempt (SPEC §7: at most 3). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is returned at once. */
  maxRetryAfterMs: number;
  /** Injectable for tests. `sleep` must reject (or resolve early) when the signal aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
}

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  error: ProviderError;
}

export const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 1000,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
  sleep: abortableSleep,
  random: Math.random,
};

/**
 * The wait before retry `attempt` (1-based): the server's Retry-After when it gave one, else
 * exponential backoff base·2^(attempt-1), capped, with "equal jitter" (half fixed, half random) so
 * clients that failed together do not retry together yet never retry immediately.
 */
export function retryDelay(policy: RetryPolicy, attempt: number, error: ProviderError): number {
  if (error.retryAfterMs !== null) return error.retryAfterMs;
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp / 2 + (exp / 2) * policy.random());
}

/**
 * Runs `fn` until it succeeds, fails with a non-retryable error, or the retries are spent.
 * `canRetry` lets the caller refuse a retry (e.g. a stream that already showed text).
 * Always throws a ProviderError, with `attempts` set.
 */
export async function withRetries<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  opts: {
    signal?: AbortSignal;
    onRetry?: (info: RetryInfo) => void;
    canRetry?: (error: ProviderError) => boolean;
  } = {},
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (raw) {
      const error = classifyError(raw, opts.signal);
      error.attempts = attempt + 1;
      const tooLong = error.retryAfterMs !== null && error.retryAfterMs > policy.maxRetryAfterMs;
      if (!error.retryable || attempt >= policy.maxRetries || tooLong || (opts.canRetry && !opts.canRetry(error)))
        throw error;
      const delayMs = retryDelay(policy, attempt + 1, error);
      opts.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await policy.sleep(delayMs, opts.signal);
      if (opts.signal?.aborted) {
        const aborted = new ProviderError('aborted', 'Request was aborted.', { cause: error });
        aborted.attempts = attempt + 1;
        throw aborted;
      }
    }
  }
}
