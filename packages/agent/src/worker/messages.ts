/**
 * What the runtime and a job worker say to each other (worker/run.ts is the runtime's side,
 * worker/serve.ts the worker's). Plain data, structured-cloned.
 */

/** Runtime → worker. `budgetBytes`: the heap and array buffers the job may use (serve.ts watches). */
export interface JobMessage {
  type: 'job';
  id: number;
  payload: unknown;
  budgetBytes: number;
}

/** Worker → runtime. */
export type FromJobWorker =
  | { type: 'ready' }
  | { type: 'progress'; id: number; data: unknown }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'fail'; id: number; error: string }
  /** The job went over its memory budget; the worker ends itself after saying so. */
  | { type: 'over'; id: number; usedBytes: number };

/** What a worker is given at start: the heartbeat it bumps while it works (see serve.ts `beat`). */
export interface JobWorkerData {
  beat: SharedArrayBuffer;
}

/** The heartbeat: an Int32 counter, the label's length, then up to this many bytes of label. */
export const BEAT_LABEL_BYTES = 2048;
export const BEAT_BYTES = 8 + BEAT_LABEL_BYTES;
