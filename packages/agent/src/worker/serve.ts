/**
 * The worker's side of a job worker (worker/run.ts starts it): `serveJobs(run)` answers each job
 * with what `run` returns. While a job runs, the heap and array buffers are watched against the
 * job's budget (every 20 ms, and at each `beat`): over it, the worker says so and ends itself, so
 * a decompression bomb's buffers never grow past the budget by more than one step. `beat(label)`
 * says the job is alive and what it is doing (the runtime's stall watch reads it, without a message).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BEAT_LABEL_BYTES, type FromJobWorker, type JobMessage, type JobWorkerData } from './messages';

export interface JobTools {
  /** The job is alive; `label` (a file, a page) names what it works on now. Cheap: no message. */
  beat(label?: string): void;
  /** Something the runtime takes as it comes (a page of a PDF). */
  progress(data: unknown): void;
}

const WATCH_MS = 20;

export function serveJobs(run: (payload: unknown, tools: JobTools) => unknown): void {
  const port = parentPort;
  if (!port) throw new Error('worker/serve.ts runs in a worker thread');
  const send = (m: FromJobWorker): void => port.postMessage(m);
  const { beat: sab } = workerData as JobWorkerData;
  const counter = new Int32Array(sab, 0, 2);
  const label = new Uint8Array(sab, 8, BEAT_LABEL_BYTES);
  const encoder = new TextEncoder();

  let current: { id: number; budget: number } | null = null;
  const overBudget = (): boolean => {
    if (!current) return false;
    const m = process.memoryUsage();
    const used = m.heapUsed + m.arrayBuffers;
    if (used <= current.budget) return false;
    send({ type: 'over', id: current.id, usedBytes: used });
    // Ends this thread only; the runtime sees the exit and keeps what the job sent so far.
    process.exit(1);
  };
  const tools: JobTools = {
    beat(text) {
      if (text !== undefined) {
        const { written } = encoder.encodeInto(text, label);
        Atomics.store(counter, 1, written);
      }
      Atomics.add(counter, 0, 1);
      overBudget();
    },
    progress(data) {
      if (current) send({ type: 'progress', id: current.id, data });
    },
  };

  port.on('message', (m: JobMessage) => {
    if (m.type !== 'job') return;
    current = { id: m.id, budget: m.budgetBytes };
    const watch = setInterval(overBudget, WATCH_MS);
    Promise.resolve()
      .then(() => run(m.payload, tools))
      .then(
        (result) => send({ type: 'done', id: m.id, result }),
        (err: unknown) => send({ type: 'fail', id: m.id, error: err instanceof Error ? err.message : String(err) }),
      )
      .finally(() => {
        clearInterval(watch);
        current = null;
      });
  });
  send({ type: 'ready' });
}
