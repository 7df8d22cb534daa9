import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ATTACHMENT_LIMITS, type AttachmentCut } from '@threadline/protocol';
import { findWorkerEntry, runInWorker, type JobLimits } from '../worker/run';
import type { ExtractJob, ExtractResult, PageText } from './extractRun';

/**
 * Reading attached files off the runtime's request thread (every other route, the streaming of a
 * running turn), each file in a worker of its own (worker/run.ts), so a 150,000-page PDF never
 * holds another session's one-page PDF, and within limits: time, memory (the worker's heap and
 * its array buffers, where pdf.js inflates a page's streams), pages and characters
 * (ATTACHMENT_LIMITS.extract*). A PDF's pages arrive as they are read: over a limit, the pages
 * read by then are kept and the caller told which limit stopped it.
 */

const EXTRACT_WORKER = findWorkerEntry(dirname(fileURLToPath(import.meta.url)), 'extractWorker');

export interface ExtractLimits {
  timeMs: number;
  memoryMb: number;
  pages: number;
  chars: number;
}

export const EXTRACT_LIMITS: ExtractLimits = Object.freeze({
  timeMs: ATTACHMENT_LIMITS.extractSeconds * 1000,
  memoryMb: ATTACHMENT_LIMITS.extractMemoryMb,
  pages: ATTACHMENT_LIMITS.extractPages,
  chars: ATTACHMENT_LIMITS.extractChars,
});

/** What the worker sends while it reads a PDF: the page count once open, then each page. */
type PdfProgress = PageText | { total: number };

function jobLimits(l: ExtractLimits): JobLimits {
  return { timeMs: l.timeMs, memoryMb: l.memoryMb };
}

/** A copy of the bytes of its own, handed over (not cloned) to the worker. */
function ownCopy(bytes: Uint8Array): ArrayBuffer {
  return new Uint8Array(bytes).buffer;
}

export interface PdfPages {
  /** The text of the pages read, in order (page 1 first). */
  pages: string[];
  /** The document's page count; null when it could not be opened within the limits. */
  total: number | null;
  /** Reading stopped at a limit (the pages above are what was kept). */
  cut: AttachmentCut | null;
  /** The thread that read it (null when it stopped at a limit). */
  thread: number | null;
}

/** A PDF's text, page by page, read by unpdf in a worker within `limits`. Throws when it is no PDF pdf.js can read. */
export async function pdfPagesInWorker(bytes: Uint8Array, limits: ExtractLimits = EXTRACT_LIMITS): Promise<PdfPages> {
  const pages: string[] = [];
  let total: number | null = null;
  const buffer = ownCopy(bytes);
  const job: ExtractJob = { kind: 'pdf', bytes: buffer, maxPages: limits.pages, maxChars: limits.chars };
  const end = await runInWorker<ExtractResult, PdfProgress>(EXTRACT_WORKER, job, {
    limits: jobLimits(limits),
    transfer: [buffer],
    onProgress: (p) => {
      if ('total' in p) total = p.total;
      else if (p.page === pages.length + 1) pages.push(p.text);
    },
  });
  const cutAt = (limit: AttachmentCut['limit']): AttachmentCut => ({
    limit,
    keptPages: pages.length,
    ...(total !== null ? { totalPages: total } : {}),
  });
  if (end.ok) {
    const r = end.result;
    if (r.kind !== 'pdf') throw new Error('the reader answered with no PDF');
    return { pages, total: r.total, cut: r.stoppedAt ? cutAt(r.stoppedAt) : null, thread: r.thread };
  }
  if (end.limit === 'time' || end.limit === 'memory') return { pages, total, cut: cutAt(end.limit), thread: null };
  throw new Error(end.message);
}

/** Bytes decoded as UTF-8 in a worker (null: not text; `thread`: the worker's). Throws when it ran over a limit. */
export async function textInWorker(
  bytes: Uint8Array,
  limits: ExtractLimits = EXTRACT_LIMITS,
): Promise<{ text: string | null; thread: number }> {
  const buffer = ownCopy(bytes);
  const end = await runInWorker<ExtractResult>(EXTRACT_WORKER, { kind: 'text', bytes: buffer } satisfies ExtractJob, {
    limits: jobLimits(limits),
    transfer: [buffer],
  });
  if (!end.ok) throw new Error(end.limit === 'failed' ? end.message : `over the ${end.limit} limit`);
  if (end.result.kind !== 'text') throw new Error('the reader answered with no text');
  return { text: end.result.text, thread: end.result.thread };
}
