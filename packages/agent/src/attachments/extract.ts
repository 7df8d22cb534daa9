import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import * as z from 'zod';

/**
 * Reading attached files in a worker thread, so a large PDF or text file does not hold the
 * runtime's request thread (every other route, the streaming of a running turn). One worker,
 * started on first use and ended after a minute without work; jobs run one after another in it.
 */

// Beside this module in the sources, beside the bundle in the Electron build (same file name).
const WORKER_FILE = join(dirname(fileURLToPath(import.meta.url)), 'extractWorker.mjs');
const IDLE_MS = 60_000;

const ReplySchema = z.union([
  z.object({ id: z.number(), ok: z.literal(true), thread: z.number(), result: z.unknown() }),
  z.object({ id: z.number(), ok: z.literal(false), error: z.string() }),
]);
const PdfSchema = z.object({ pages: z.array(z.string()), total: z.number().int().nonnegative() });
const TextSchema = z.object({ text: z.string().nullable() });

/** What the worker answered, and the thread that did the work. */
type Done = { result: unknown; thread: number };
type Pending = { resolve: (v: Done) => void; reject: (e: Error) => void };

let worker: Worker | null = null;
let idle: NodeJS.Timeout | null = null;
let seq = 0;
const pending = new Map<number, Pending>();

function failAll(err: Error): void {
  for (const p of pending.values()) p.reject(err);
  pending.clear();
}

function start(): Worker {
  const w = new Worker(WORKER_FILE);
  w.on('message', (raw: unknown) => {
    const parsed = ReplySchema.safeParse(raw);
    if (!parsed.success) return;
    const reply = parsed.data;
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.ok) p.resolve({ result: reply.result, thread: reply.thread });
    else p.reject(new Error(reply.error));
    if (pending.size === 0) armIdle();
  });
  w.on('error', (err) => {
    if (worker === w) worker = null;
    failAll(err);
  });
  w.on('exit', (code) => {
    if (worker === w) worker = null;
    failAll(new Error(`the file reader stopped (exit code ${code})`));
  });
  // An idle worker does not keep the process alive.
  w.unref();
  return w;
}

function armIdle(): void {
  if (idle) clearTimeout(idle);
  idle = setTimeout(() => void stopExtractWorker(), IDLE_MS);
  idle.unref();
}

function run(kind: 'pdf' | 'text', bytes: Uint8Array): Promise<Done> {
  if (idle) clearTimeout(idle);
  idle = null;
  worker ??= start();
  const id = ++seq;
  // A copy of its own, handed over (not cloned) to the worker.
  const copy = new Uint8Array(bytes).buffer;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker!.postMessage({ id, kind, bytes: copy }, [copy]);
  });
}

/** Ends the worker (it starts again on the next file); pending reads fail. */
export async function stopExtractWorker(): Promise<void> {
  if (idle) clearTimeout(idle);
  idle = null;
  const w = worker;
  worker = null;
  if (w) await w.terminate();
}

/** A PDF's text per page and its page count, read by unpdf in the worker (`thread`: its threadId). */
export async function pdfPagesInWorker(bytes: Uint8Array): Promise<{ pages: string[]; total: number; thread: number }> {
  const { result, thread } = await run('pdf', bytes);
  return { ...PdfSchema.parse(result), thread };
}

/** UTF-8 text decoded in the worker, or null for bytes that are not text (`thread`: its threadId). */
export async function textInWorker(bytes: Uint8Array): Promise<{ text: string | null; thread: number }> {
  const { result, thread } = await run('text', bytes);
  return { text: TextSchema.parse(result).text, thread };
}
