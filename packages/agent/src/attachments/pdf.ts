import { errorMessage, AppError, ATTACHMENT_LIMITS, type AttachmentCut } from '@threadline/protocol';
import { pdfPagesInWorker } from './extract';

/** What the model reads where reading a PDF stopped at a limit (the user gets the same, in words of the UI). */
export function cutNote(name: string, cut: AttachmentCut): string {
  const of = cut.totalPages !== undefined ? ` of ${cut.totalPages}` : '';
  const why = {
    time: `reading stopped at its time limit of ${ATTACHMENT_LIMITS.extractSeconds} s`,
    memory: `reading stopped at its memory limit of ${ATTACHMENT_LIMITS.extractMemoryMb} MB`,
    pages: `at most ${ATTACHMENT_LIMITS.extractPages} pages are read`,
    chars: `at most ${ATTACHMENT_LIMITS.extractChars} characters of text are read`,
  }[cut.limit];
  return cut.keptPages === 0
    ? `[No page of the PDF ${name} could be read: ${why}.]`
    : `[Only the first ${cut.keptPages}${of} pages of the PDF ${name} were read: ${why}.]`;
}

/**
 * A PDF's text, page by page, with unpdf (pdf.js for servers, pure JS) in an extraction worker
 * (extract.ts), within its limits. Pages are separated by a blank line and a `[page N]` line so a
 * quote can be found again. A PDF whose pages hold no text (a scan) says so instead of giving the
 * model nothing; one cut at a limit says where, at its end.
 */
export async function extractPdfText(
  bytes: Uint8Array,
  name: string,
): Promise<{ text: string; pages: number; cut: AttachmentCut | null }> {
  let read;
  try {
    read = await pdfPagesInWorker(bytes);
  } catch (err) {
    throw new AppError('invalid_input', `Could not read the PDF ${name} (${errorMessage(err)}).`);
  }
  const { pages, cut } = read;
  const total = read.total ?? pages.length;
  if (cut && pages.length === 0) return { text: cutNote(name, cut), pages: total, cut };
  const body = pages.map((p, i) => `[page ${i + 1}]\n${p.trim()}`).join('\n\n');
  if (pages.every((p) => p.trim() === '') && !cut)
    return {
      text: `[The PDF ${name} has ${total} pages but no text layer: it is probably scanned.]`,
      pages: total,
      cut,
    };
  return { text: cut ? `${body}\n\n${cutNote(name, cut)}` : body, pages: total, cut };
}
