/**
 * The work's result, or undefined as soon as `signal` fires (the work goes on by itself; what it
 * holds is its own to release when it sees the signal). Stop never waits on what it stopped.
 */
export function untilAborted<T>(work: Promise<T> | undefined, signal: AbortSignal): Promise<T | undefined> {
  if (!work || signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (v: T | undefined): void => {
      signal.removeEventListener('abort', onAbort);
      resolve(v);
    };
    work.then(done, () => done(undefined));
  });
}
