/**
 * Jobs that must never hold the thread that answers requests, and must never hold each other:
 * a search whose regular expression the model wrote, the extraction of an attached PDF. Each job
 * runs in a worker thread of its own (an idle one of the same file and memory budget is reused,
 * never shared by two jobs at once), with limits:
 *
 * - time: the job's wall time from when its worker is ready (a worker starting under tsx is not
 *   counted against it);
 * - stall: no heartbeat (worker/serve.ts `beat`) for this long: the job is stuck in one step (a
 *   runaway regular expression backtracks inside one call, which nothing but ending the thread
 *   stops);
 * - memory: V8's heap limit of the worker (`resourceLimits`) plus the worker's own watch of its
 *   heap and array buffers (serve.ts), which the heap limit does not count;
 * - the caller's abort signal (Stop).
 *
 * Over a limit, or aborted, the worker is ended (`terminate`: V8 stops even a regular expression
 * in the middle of a match; its open files are closed with it) and the caller gets which limit,
 * with whatever progress it already took. The worker file is found beside the caller: `<name>.js`
 * of the Electron bundle (electron.vite.config.ts builds it as an entry of its own), else
 * `<name>.ts` of the sources, started with tsx's loader (tsx and vitest run the sources).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { BEAT_BYTES, BEAT_LABEL_BYTES, type FromJobWorker, type JobMessage, type JobWorkerData } from './messages';

export interface WorkerEntry {
  file: string;
  typescript: boolean;
}

/** The worker file `name` in `dir`: the bundle's `<name>.js`, else the sources' `<name>.ts`. */
export function findWorkerEntry(dir: string, name: string): WorkerEntry {
  const js = join(dir, `${name}.js`);
  if (existsSync(js)) return { file: js, typescript: false };
  return { file: join(dir, `${name}.ts`), typescript: true };
}

export interface JobLimits {
  /** Wall time of the job, from when its worker is ready (ms). */
  timeMs: number;
  /** Heap plus array buffers of the worker (MB). */
  memoryMb: number;
  /** The longest time without a heartbeat (ms); none: not watched. */
  stallMs?: number;
}

export type JobLimit = 'time' | 'stall' | 'memory' | 'aborted' | 'failed';

export type JobEnd<R> =
  | { ok: true; result: R }
  | {
      ok: false;
      limit: JobLimit;
      /** For `failed`: the error; for `stall`: the label of the step that stalled. */
      message: string;
    };

export interface JobOptions<P> {
  limits: JobLimits;
  signal?: AbortSignal;
  /** Array buffers handed over to the worker instead of copied. */
  transfer?: ArrayBuffer[];
  onProgress?: (data: P) => void;
}

interface Idle {
  worker: Worker;
  beat: SharedArrayBuffer;
  timer: NodeJS.Timeout;
}

/** Idle workers kept for reuse, per worker file and memory budget; ended after a while unused. */
const idle = new Map<string, Idle[]>();
const IDLE_KEEP = 2;
const IDLE_MS = 30_000;
/** How often the stall watch looks at the heartbeat. */
const STALL_POLL_MS = 250;
/** Jobs now running (tests and the bench read it). */
let running = 0;

export function runningJobs(): number {
  return running;
}

function spawnWorker(entry: WorkerEntry, memoryMb: number): { worker: Worker; beat: SharedArrayBuffer } {
  const beat = new SharedArrayBuffer(BEAT_BYTES);
  const workerData: JobWorkerData = { beat };
  const resourceLimits = { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(32, memoryMb / 4) };
  let worker: Worker;
  if (entry.typescript) {
    // The sources (tsx, vitest): register tsx's loader in the worker, then import the entry.
    const tsxApi = createRequire(import.meta.url).resolve('tsx/esm/api');
    const boot =
      `const { register } = require(${JSON.stringify(tsxApi)}); register();` +
      `import(${JSON.stringify(pathToFileURL(entry.file).href)}).catch((e) => { throw e; });`;
    worker = new Worker(boot, { eval: true, workerData, resourceLimits, execArgv: [] });
  } else worker = new Worker(entry.file, { workerData, resourceLimits });
  return { worker, beat };
}

function takeIdle(key: string): Idle | null {
  const list = idle.get(key);
  const got = list?.pop() ?? null;
  if (got) clearTimeout(got.timer);
  return got;
}

function putIdle(key: string, worker: Worker, beat: SharedArrayBuffer): void {
  const list = idle.get(key) ?? [];
  if (list.length >= IDLE_KEEP) {
    void worker.terminate();
    return;
  }
  worker.removeAllListeners('message');
  worker.removeAllListeners('error');
  worker.removeAllListeners('exit');
  // An idle worker does not keep the process alive; one that dies idle is dropped from the list.
  worker.on('error', () => undefined);
  worker.once('exit', () => {
    const now = idle.get(key);
    if (now)
      idle.set(
        key,
        now.filter((i) => i.worker !== worker),
      );
  });
  worker.unref();
  const timer = setTimeout(() => {
    const now = idle.get(key);
    if (now)
      idle.set(
        key,
        now.filter((i) => i.worker !== worker),
      );
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  list.push({ worker, beat, timer });
  idle.set(key, list);
}

/** Ends every idle worker (tests, shutdown). Running jobs are not touched. */
export async function endIdleWorkers(): Promise<void> {
  const all = [...idle.values()].flat();
  idle.clear();
  for (const i of all) clearTimeout(i.timer);
  await Promise.all(all.map((i) => i.worker.terminate()));
}

function labelOf(beat: SharedArrayBuffer): string {
  const len = Math.min(Atomics.load(new Int32Array(beat, 0, 2), 1), BEAT_LABEL_BYTES);
  // A copy: TextDecoder does not read shared memory.
  return new TextDecoder().decode(new Uint8Array(beat, 8, len).slice());
}

/** Runs one job in a worker of its own (see above). Never rejects: every end is a JobEnd. */
export function runInWorker<R, P = unknown>(
  entry: WorkerEntry,
  payload: unknown,
  opts: JobOptions<P>,
): Promise<JobEnd<R>> {
  const { limits } = opts;
  const key = `${entry.file}\u0000${limits.memoryMb}`;
  if (opts.signal?.aborted) return Promise.resolve({ ok: false, limit: 'aborted', message: 'aborted' });
  let slot: { worker: Worker; beat: SharedArrayBuffer; ready: boolean };
  const reused = takeIdle(key);
  try {
    slot = reused ? { ...reused, ready: true } : { ...spawnWorker(entry, limits.memoryMb), ready: false };
  } catch (err) {
    return Promise.resolve({ ok: false, limit: 'failed', message: (err as Error).message });
  }
  const { worker, beat } = slot;
  worker.ref();
  running++;
  const id = 1;
  return new Promise<JobEnd<R>>((resolve) => {
    let ended = false;
    let timeTimer: NodeJS.Timeout | null = null;
    let stallTimer: NodeJS.Timeout | null = null;
    const end = (out: JobEnd<R>, keep: boolean): void => {
      if (ended) return;
      ended = true;
      running--;
      if (timeTimer) clearTimeout(timeTimer);
      if (stallTimer) clearInterval(stallTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (keep) putIdle(key, worker, beat);
      else {
        worker.removeAllListeners();
        worker.on('error', () => undefined);
        void worker.terminate();
      }
      resolve(out);
    };
    const onAbort = (): void => end({ ok: false, limit: 'aborted', message: 'aborted' }, false);
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const startJob = (): void => {
      timeTimer = setTimeout(
        () => end({ ok: false, limit: 'time', message: `over ${limits.timeMs} ms` }, false),
        limits.timeMs,
      );
      if (limits.stallMs !== undefined) {
        const counter = new Int32Array(beat, 0, 2);
        let last = Atomics.load(counter, 0);
        let since = Date.now();
        stallTimer = setInterval(
          () => {
            const now = Atomics.load(counter, 0);
            if (now !== last) {
              last = now;
              since = Date.now();
            } else if (Date.now() - since >= limits.stallMs!)
              end({ ok: false, limit: 'stall', message: labelOf(beat) }, false);
          },
          Math.min(STALL_POLL_MS, limits.stallMs),
        );
      }
      const msg: JobMessage = { type: 'job', id, payload, budgetBytes: limits.memoryMb * 1024 * 1024 };
      try {
        worker.postMessage(msg, opts.transfer ?? []);
      } catch (err) {
        end({ ok: false, limit: 'failed', message: (err as Error).message }, false);
      }
    };

    worker.on('message', (m: FromJobWorker) => {
      if (m.type === 'ready') {
        if (!slot.ready) {
          slot.ready = true;
          startJob();
        }
        return;
      }
      if (m.id !== id) return;
      switch (m.type) {
        case 'progress':
          try {
            opts.onProgress?.(m.data as P);
          } catch {
            // A caller's progress handler that throws changes nothing in the job.
          }
          return;
        case 'done':
          end({ ok: true, result: m.result as R }, true);
          return;
        case 'fail':
          end({ ok: false, limit: 'failed', message: m.error }, true);
          return;
        case 'over':
          end({ ok: false, limit: 'memory', message: `${Math.round(m.usedBytes / 1024 / 1024)} MB` }, false);
          return;
      }
    });
    worker.on('error', (err: Error & { code?: string }) =>
      end(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? { ok: false, limit: 'memory', message: err.message }
          : { ok: false, limit: 'failed', message: err.message },
        false,
      ),
    );
    worker.on('exit', (code) =>
      end({ ok: false, limit: 'failed', message: `the worker stopped (exit code ${code})` }, false),
    );
    if (slot.ready) startJob();
  });
}
