import { errorMessage, AppError } from '@threadline/protocol';
import { pdfPagesInWorker } from './extract';

/**
 * A PDF's text, page by page, with unpdf (pdf.js for servers, pure JS) in the file-reading worker
 * (extract.ts). Pages are separated by a blank line and a `[page N]` line so a quote can be found
 * again. A PDF whose pages hold no text (a scan) says so instead of giving the model nothing.
 */
export async function extractPdfText(bytes: Uint8Array, name: string): Promise<{ text: string; pages: number }> {
  let pages: string[];
  let total: number;
  try {
    ({ pages, total } = await pdfPagesInWorker(bytes));
  } catch (err) {
    throw new AppError('invalid_input', `Could not read the PDF ${name} (${errorMessage(err)}).`);
  }
  const text = pages.map((p, i) => `[page ${i + 1}]\n${p.trim()}`).join('\n\n');
  if (pages.every((p) => p.trim() === ''))
    return { text: `[The PDF ${name} has ${total} pages but no text layer: it is probably scanned.]`, pages: total };
  return { text, pages: total };
}
