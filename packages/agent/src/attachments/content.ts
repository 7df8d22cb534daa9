import {
  ATTACHMENT_BLOCK_CLOSE,
  ATTACHMENT_BLOCK_OPEN,
  ATTACHMENT_LIMITS,
  type AttachmentRef,
} from '@threadline/protocol';

const attr = (v: string): string =>
  v.replace(/[&"<>\n]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;', '\n': ' ' })[c]!);

/**
 * A text attachment as the model reads it, inside the user's message: a block naming the file,
 * its text cut at `textInlineChars` with a marker saying how to read the rest (read_tool_output
 * with the attachment's id pages through the whole text, as for a long tool output).
 */
export function attachmentBlock(
  ref: AttachmentRef,
  text: string,
  limit: number = ATTACHMENT_LIMITS.textInlineChars,
): string {
  const pages = ref.pages !== undefined ? ` pages="${ref.pages}"` : '';
  const head = `${ATTACHMENT_BLOCK_OPEN}name="${attr(ref.name)}" id="${attr(ref.id)}" chars="${text.length}"${pages}>`;
  if (text.length <= limit) return `${head}\n${text}\n${ATTACHMENT_BLOCK_CLOSE}`;
  let end = limit;
  const code = text.charCodeAt(end);
  if (code >= 0xdc00 && code <= 0xdfff) end -= 1;
  const marker =
    `[… ${text.length - end} more characters of ${ref.name} not shown. ` +
    `Read them with read_tool_output {"id": "${ref.id}", "offset": ${end}}]`;
  return `${head}\n${text.slice(0, end)}\n${marker}\n${ATTACHMENT_BLOCK_CLOSE}`;
}

/** The user's text followed by a block per text attachment (images travel as image parts). */
export function contentWithAttachments(text: string, blocks: string[]): string {
  return [text.trim() === '' ? '' : text, ...blocks].filter((p) => p !== '').join('\n\n');
}
