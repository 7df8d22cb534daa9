/** What a task sees of the main thread: its callbacks (pool/pool.ts, `calls`). */
export interface TaskHost {
  /** An async callback (the answer comes back as a message). */
  call(name: string, arg?: unknown): Promise<unknown>;
  /** A callback without an answer (progress). */
  notify(name: string, arg?: unknown): void;
  /** A synchronous callback: the worker waits until the main thread has answered (ids). */
  callSync(name: string, arg?: unknown): unknown;
}
