/**
 * Reading an attached file, as it runs in the extraction worker (attachments/extractWorker.ts,
 * started by attachments/extract.ts through worker/run.ts): a PDF's text page by page with unpdf
 * (pdf.js for servers, pure JS), each page handed to the runtime as soon as it is read, so what
 * was read before a limit is kept; or a large file decoded as UTF-8.
 */

import { threadId } from 'node:worker_threads';

export type ExtractJob =
  { kind: 'pdf'; bytes: ArrayBuffer; maxPages: number; maxChars: number } | { kind: 'text'; bytes: ArrayBuffer };

/** One page's text (a progress message of a PDF job). */
export interface PageText {
  page: number;
  text: string;
}

/** `thread`: the worker's threadId (tests check the work ran off the request thread). */
export type ExtractResult =
  | { kind: 'pdf'; total: number; stoppedAt: 'pages' | 'chars' | null; thread: number }
  | { kind: 'text'; text: string | null; thread: number };

/** UTF-8 text, or null for bytes that are not (a binary file). A BOM is dropped. */
export function decodeText(b: Uint8Array): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(b);
    // NUL is in binary files, never in text meant to be read.
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

export async function runExtract(
  job: ExtractJob,
  tools: { beat(label?: string): void; progress(p: PageText | { total: number }): void },
): Promise<ExtractResult> {
  if (job.kind === 'text') return { kind: 'text', text: decodeText(new Uint8Array(job.bytes)), thread: threadId };
  const { getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(job.bytes));
  try {
    const total = pdf.numPages;
    tools.progress({ total });
    let chars = 0;
    for (let n = 1; n <= total; n++) {
      if (n > job.maxPages) return { kind: 'pdf', total, stoppedAt: 'pages', thread: threadId };
      tools.beat(`page ${n}`);
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      // As unpdf's extractText joins a page's items.
      const text = content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
      chars += text.length;
      tools.progress({ page: n, text });
      if (chars >= job.maxChars) return { kind: 'pdf', total, stoppedAt: n < total ? 'chars' : null, thread: threadId };
    }
    return { kind: 'pdf', total, stoppedAt: null, thread: threadId };
  } finally {
    await pdf.cleanup();
  }
}
