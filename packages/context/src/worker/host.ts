/** What a task sees of the main thread: its callbacks (worker/pool.ts, `calls`). */
export interface TaskHost {
  /** An async callback (the answer comes back as a message). */
  call(name: string, arg?: unknown): Promise<unknown>;
  /** A callback without an answer (progress). */
  notify(name: string, arg?: unknown): void;
  /** A synchronous callback: the worker waits until the main thread has answered (ids). */
  callSync(name: string, arg?: unknown): unknown;
}

/** The host of a task run on the main thread: the callbacks themselves. */
export function directHost(calls: Record<string, (arg: unknown) => unknown>): TaskHost {
  const fn = (name: string) => {
    const f = calls[name];
    if (!f) throw new Error(`no callback ${name}`);
    return f;
  };
  return {
    call: async (name, arg) => fn(name)(arg),
    notify: (name, arg) => void calls[name]?.(arg),
    callSync: (name, arg) => fn(name)(arg),
  };
}
