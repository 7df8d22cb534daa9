// The worker that reads attached files off the runtime's request thread (extract.ts starts it).
// Plain JavaScript with no workspace imports, so the same file runs from the sources (tsx, vitest)
// and beside the Electron bundle (electron.vite.config.ts builds it as out/main/extractWorker.mjs).
import { parentPort, threadId } from 'node:worker_threads';

/** UTF-8 text, or null for bytes that are not (a binary file). A BOM is dropped. */
function asText(bytes) {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    // NUL is in binary files, never in text meant to be read.
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

/** A PDF's text per page, with unpdf (pdf.js for servers, pure JS). */
async function pdfPages(bytes) {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(bytes);
  try {
    const out = await extractText(pdf, { mergePages: false });
    return { pages: out.text, total: out.totalPages };
  } finally {
    await pdf.cleanup();
  }
}

parentPort.on('message', async (job) => {
  try {
    const bytes = new Uint8Array(job.bytes);
    const result = job.kind === 'pdf' ? await pdfPages(bytes) : { text: asText(bytes) };
    parentPort.postMessage({ id: job.id, ok: true, thread: threadId, result });
  } catch (err) {
    parentPort.postMessage({ id: job.id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});
