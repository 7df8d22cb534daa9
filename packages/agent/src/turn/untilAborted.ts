/** The work's result, or undefined when the turn is cancelled first or the work fails (the work goes on). */
export function untilAborted<T>(work: Promise<T> | undefined, signal: AbortSignal): Promise<T | undefined> {
  if (!work || signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve) => {
    signal.addEventListener('abort', () => resolve(undefined), { once: true });
    work.then(resolve, () => resolve(undefined));
  });
}
