/**
 * The work pool: `node:worker_threads` workers that run CPU-heavy tasks (token counting of large
 * texts, tool-output truncation, compaction, the CFPM refresh) off the thread that answers
 * requests (issue 25). One module owns the workers; every caller goes through `runOffThread`.
 *
 * API (generic, for any package):
 *
 *     const result = await runOffThread<Result>('taskName', payload, {
 *       inThread: () => sameWorkHere(),   // what runs when no worker can (and below a size)
 *       calls: { summarize: async (req) => …, newId: () => … },   // callbacks the task may use
 *     });
 *
 * - `task` names an entry of the worker's task table (worker/tasks.ts); add a task there. The
 *   payload and the result cross the boundary as plain data (structured clone): no functions,
 *   no class instances. The table is our own code run from the same build, so results are kept
 *   typed and internal (not re-validated): the caller names the result type it gets back.
 * - `calls` are the main-thread callbacks a task may use: `host.call(name, arg)` (async; a
 *   summary request), `host.notify(name, arg)` (no answer; a progress step) and
 *   `host.callSync(name, arg)` (the worker blocks on Atomics until the main thread answered; ids).
 *   A callback that throws rejects the worker's call with an Error of the same message and fields.
 * - `inThread` is the fallback: when workers are switched off (`THREADLINE_WORKERS=0`), when the
 *   first worker cannot start (one line is logged, then every task runs in-thread), or when a
 *   worker dies under a task (that task is run again in-thread). It must compute the same result.
 *
 * `THREADLINE_POOL_LOG=1` logs a line whenever a worker is ready (the responsiveness test reads it).
 *
 * Size: `THREADLINE_WORKERS`, else `os.availableParallelism() - 1`, at least 1. Workers start on
 * the first task and stay (an idle one never keeps the process alive). The worker file is found
 * beside this module: `contextWorker.js` in a bundle (electron-vite emits it as its own entry of
 * the main build), else `worker/entry.ts` (sources run by tsx or vitest; the worker then registers
 * tsx's loader before it imports the entry). This folder knows no task: worker/ holds the task
 * table and the worker's side, and sits above the engine it runs.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '@threadline/protocol';

/** Callbacks a task may use on the main thread, by name. */
export type HostCalls = Record<string, (arg: unknown) => unknown>;

export interface RunOptions<T> {
  /** The same work on this thread (sliced where it can be): the fallback, and the small case. */
  inThread: () => Promise<T> | T;
  calls?: HostCalls;
}

/** Bytes a synchronous answer may take (ids and small values; more is an error). */
export const SYNC_REPLY_BYTES = 64 * 1024;

// ── Messages between the pool and a worker (worker/entry.ts speaks the other side) ─────────────

/** Pool → worker. */
export type ToWorker =
  | { type: 'run'; id: number; task: string; payload: unknown }
  | { type: 'reply'; id: number; callId: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; callId: number; ok: false; error: PlainError };

/** Worker → pool. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'fail'; id: number; error: PlainError }
  | { type: 'call'; id: number; callId: number; name: string; arg: unknown }
  | { type: 'notify'; id: number; name: string; arg: unknown }
  | { type: 'callSync'; id: number; name: string; arg: unknown };

/**
 * An error as plain data: its message, name and the fields callers read (a provider's status,
 * code, body: errors/contextLimit.ts recognizes a context-limit error by them).
 */
export interface PlainError {
  message: string;
  name: string;
  stack?: string;
  fields: Record<string, unknown>;
}

const ERROR_FIELDS = [
  'code',
  'type',
  'error_code',
  'status',
  'statusCode',
  'status_code',
  'detail',
  'error_message',
  'msg',
  'error',
  'body',
  'cause',
  'response',
  'data',
  'metadata',
  'raw',
];

export function toPlainError(err: unknown): PlainError {
  if (!(err instanceof Error)) return { message: String(err), name: 'Error', fields: {} };
  const fields: Record<string, unknown> = {};
  const o = err as unknown as Record<string, unknown>;
  for (const k of ERROR_FIELDS) {
    if (!(k in o) || o[k] === undefined) continue;
    try {
      const v = o[k];
      fields[k] = v instanceof Error ? { message: v.message, ...toPlainError(v).fields } : structuredClone(v);
    } catch {
      // Not plain data (a response object): left out.
    }
  }
  return { message: err.message, name: err.name, stack: err.stack, fields };
}

export function fromPlainError(p: PlainError): Error {
  const err = Object.assign(new Error(p.message), p.fields);
  err.name = p.name;
  if (p.stack) err.stack = p.stack;
  return err;
}

/** What a worker gets at start: the shared buffer its synchronous calls are answered in. */
export interface WorkerInit {
  /** Int32 [0] state (0 waiting, 1 value, 2 error), [1] byte length; the UTF-8 JSON after 8 bytes. */
  sync: SharedArrayBuffer;
}

interface Job {
  id: number;
  task: string;
  payload: unknown;
  calls: HostCalls;
  inThread: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  sync: SharedArrayBuffer;
  ready: boolean;
  job: Job | null;
}

/** The worker file for this build, or null when there is none. */
export function workerEntry(): { url: URL; typescript: boolean } | null {
  for (const [rel, typescript] of [
    ['./contextWorker.js', false],
    ['../contextWorker.js', false],
    ['../worker/entry.ts', true],
  ] as const) {
    try {
      const url = new URL(rel, import.meta.url);
      if (url.protocol === 'file:' && existsSync(fileURLToPath(url))) return { url, typescript };
    } catch {
      // import.meta.url is not a file: URL: no worker file.
    }
  }
  return null;
}

/** The pool's size: THREADLINE_WORKERS, else one less than the machine's parallelism, at least 1. */
export function poolSize(): number {
  const env = process.env.THREADLINE_WORKERS;
  if (env !== undefined && env.trim() !== '' && Number.isInteger(Number(env)) && Number(env) >= 0) return Number(env);
  return Math.max(1, availableParallelism() - 1);
}

function writeSync(sab: SharedArrayBuffer, ok: boolean, value: unknown): void {
  const head = new Int32Array(sab, 0, 2);
  let bytes = new TextEncoder().encode(JSON.stringify(ok ? (value ?? null) : String(value)));
  if (bytes.length > sab.byteLength - 8) {
    ok = false;
    bytes = new TextEncoder().encode(JSON.stringify(`a synchronous answer over ${sab.byteLength - 8} bytes`));
  }
  new Uint8Array(sab, 8, bytes.length).set(bytes);
  Atomics.store(head, 1, bytes.length);
  Atomics.store(head, 0, ok ? 1 : 2);
  Atomics.notify(head, 0);
}

export class WorkPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  /** Set once a worker could not start: every task runs in-thread from then on. */
  private broken: string | null = null;
  /** Tasks finished by a worker (in all and by name), and tasks run on this thread instead (tests). */
  readonly ran = { worker: 0, inThread: 0, tasks: {} as Record<string, number> };
  private readonly entry: ReturnType<typeof workerEntry>;

  constructor(
    readonly size = poolSize(),
    entry = workerEntry(),
    private readonly log: (line: string) => void = (line) => console.warn(line),
  ) {
    this.entry = entry;
    if (size > 0 && !entry) this.fail('no worker file beside the work pool');
  }

  /** Whether tasks go to workers (false: switched off, or a worker could not start). */
  get usesWorkers(): boolean {
    return this.size > 0 && this.broken === null;
  }

  run<T>(task: string, payload: unknown, opts: RunOptions<T>): Promise<T> {
    if (!this.usesWorkers) {
      if (this.size > 0) this.ran.inThread++;
      return Promise.resolve().then(opts.inThread);
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        id: this.nextId++,
        task,
        payload,
        calls: opts.calls ?? {},
        inThread: opts.inThread,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      this.pump();
    });
  }

  /** Stops the workers (tests, shutdown); queued and running tasks finish in-thread. */
  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    this.broken ??= 'closed';
    await Promise.all(slots.map((s) => s.worker.terminate()));
    for (const s of slots) if (s.job) this.runInThread(s.job);
    for (const j of this.queue.splice(0)) this.runInThread(j);
  }

  private pump(): void {
    while (this.queue.length > 0) {
      if (this.broken) {
        for (const j of this.queue.splice(0)) this.runInThread(j);
        return;
      }
      let slot = this.slots.find((s) => s.ready && !s.job);
      if (!slot) {
        if (this.slots.length >= this.size) return;
        if (!this.spawn()) continue;
        if (this.slots.every((s) => !s.ready)) return; // wait for 'ready'
        slot = this.slots.find((s) => s.ready && !s.job);
        if (!slot) return;
      }
      const job = this.queue.shift()!;
      slot.job = job;
      // A busy worker keeps the process alive (a CLI awaiting its count); an idle one does not.
      slot.worker.ref();
      const msg: ToWorker = { type: 'run', id: job.id, task: job.task, payload: job.payload };
      try {
        slot.worker.postMessage(msg);
      } catch (err) {
        // Not structured-cloneable: a caller's mistake, reported to it.
        slot.job = null;
        job.reject(err);
      }
    }
  }

  private spawn(): boolean {
    const entry = this.entry!;
    const sync = new SharedArrayBuffer(8 + SYNC_REPLY_BYTES);
    const workerData: WorkerInit = { sync };
    let worker: Worker;
    try {
      if (entry.typescript) {
        // TypeScript sources: register tsx's loader in the worker, then import the entry.
        const tsxApi = createRequire(import.meta.url).resolve('tsx/esm/api');
        const boot =
          `const { register } = require(${JSON.stringify(tsxApi)}); register();` +
          `import(${JSON.stringify(entry.url.href)}).catch((e) => { throw e; });`;
        worker = new Worker(boot, { eval: true, workerData, execArgv: [] });
      } else worker = new Worker(entry.url, { workerData });
    } catch (err) {
      this.fail(`cannot start a worker: ${(err as Error).message}`);
      return false;
    }
    // Referenced while it starts (a task waits for it), unreferenced whenever it is idle.
    const slot: Slot = { worker, sync, ready: false, job: null };
    this.slots.push(slot);
    worker.on('message', (m: FromWorker) => this.onMessage(slot, m));
    worker.on('error', (err) => this.onExit(slot, `worker error: ${err.message}`));
    worker.on('exit', (code) => this.onExit(slot, `worker exited with code ${code}`));
    return true;
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    if (m.type === 'ready') {
      slot.ready = true;
      if (process.env.THREADLINE_POOL_LOG === '1')
        this.log(`threadline: work pool: a worker is ready (size ${this.size})`);
      this.pump();
      if (!slot.job) slot.worker.unref();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== m.id) return;
    switch (m.type) {
      case 'done':
        slot.job = null;
        slot.worker.unref();
        this.ran.worker++;
        this.ran.tasks[job.task] = (this.ran.tasks[job.task] ?? 0) + 1;
        job.resolve(m.result);
        this.pump();
        return;
      case 'fail': {
        slot.job = null;
        slot.worker.unref();
        job.reject(fromPlainError(m.error));
        this.pump();
        return;
      }
      case 'notify':
        try {
          job.calls[m.name]?.(m.arg);
        } catch {
          // A progress callback that throws changes nothing in the task.
        }
        return;
      case 'callSync': {
        const fn = job.calls[m.name];
        try {
          if (!fn) throw new Error(`no callback ${m.name}`);
          writeSync(slot.sync, true, fn(m.arg));
        } catch (err) {
          writeSync(slot.sync, false, errorMessage(err));
        }
        return;
      }
      case 'call': {
        const fn = job.calls[m.name];
        const reply = (r: ToWorker): void => {
          // The worker may be gone meanwhile (closed): nothing to answer.
          if (slot.job === job) slot.worker.postMessage(r);
        };
        Promise.resolve()
          .then(() => {
            if (!fn) throw new Error(`no callback ${m.name}`);
            return fn(m.arg);
          })
          .then(
            (value) => reply({ type: 'reply', id: job.id, callId: m.callId, ok: true, value }),
            (err: unknown) =>
              reply({
                type: 'reply',
                id: job.id,
                callId: m.callId,
                ok: false,
                error: toPlainError(err),
              }),
          );
        return;
      }
    }
  }

  private onExit(slot: Slot, why: string): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    void slot.worker.terminate();
    if (!slot.ready) this.fail(why);
    else this.log(`threadline: a work-pool worker stopped (${why}); its task runs on the main thread`);
    if (slot.job) this.runInThread(slot.job);
    this.pump();
  }

  /** A worker could not start: one line, and in-thread from now on. */
  private fail(why: string): void {
    if (this.broken) return;
    this.broken = why;
    this.log(`threadline: the work pool is off (${why}); heavy work runs in slices on the main thread`);
  }

  private runInThread(job: Job): void {
    this.ran.inThread++;
    Promise.resolve().then(job.inThread).then(job.resolve, job.reject);
  }
}

let shared: WorkPool | null = null;

/** The process-wide pool (created on first use). */
export function workPool(): WorkPool {
  shared ??= new WorkPool();
  return shared;
}

/** Runs a task on the process-wide pool (see the header). */
export function runOffThread<T>(task: string, payload: unknown, opts: RunOptions<T>): Promise<T> {
  return workPool().run(task, payload, opts);
}
