import {
  AppError,
  errorMessage,
  ATTACHMENT_IMAGE_MIMES,
  ATTACHMENT_LIMITS,
  type AttachmentAdded,
} from '@threadline/protocol';
import type { Store } from '@threadline/store';
import { textInWorker } from './extract';
import { decodeText } from './extractRun';
import { extractPdfText } from './pdf';

/** Text files from this size are decoded in the file-reading worker, not on the request thread. */
const TEXT_IN_WORKER_BYTES = 256 * 1024;

export interface AttachmentUpload {
  name: string;
  mime: string;
  /** base64 */
  data: string;
  width?: number;
  height?: number;
  /** An image's thumbnail (base64), made by the renderer beside the resized image. */
  thumb?: { mime: string; data: string };
}

/** The first bytes of each image format the renderer may send (its canvas output, or a GIF as is). */
function imageFormat(b: Uint8Array): (typeof ATTACHMENT_IMAGE_MIMES)[number] | null {
  const at = (i: number, ...xs: number[]) => xs.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return null;
}

const isPdf = (b: Uint8Array): boolean => b[0] === 0x25 && b[1] === 0x50 && b[2] === 0x44 && b[3] === 0x46; // %PDF

/**
 * Stores a file the user attached: an image as it came (resized by the renderer, checked here
 * by its bytes), a PDF as its extracted text, any other file as UTF-8 text; anything else is
 * refused with a sentence saying what is accepted.
 */
export async function addAttachment(store: Store, up: AttachmentUpload): Promise<AttachmentAdded> {
  const bytes = Buffer.from(up.data, 'base64');
  if (bytes.byteLength === 0) throw new AppError('invalid_input', `${up.name} is empty.`);
  if (bytes.byteLength > ATTACHMENT_LIMITS.fileMaxBytes)
    throw new AppError(
      'invalid_input',
      `${up.name} is larger than ${ATTACHMENT_LIMITS.fileMaxBytes / 1024 / 1024} MB.`,
    );
  const image = imageFormat(bytes);
  if (image) {
    if (bytes.byteLength > ATTACHMENT_LIMITS.imageMaxBytes)
      throw new AppError(
        'invalid_input',
        `The image ${up.name} is over ${ATTACHMENT_LIMITS.imageMaxBytes / 1024 / 1024} MB after resizing.`,
      );
    if (!up.width || !up.height) throw new AppError('invalid_input', `The image ${up.name} came without its size.`);
    const thumb = up.thumb ? Buffer.from(up.thumb.data, 'base64') : null;
    const thumbMime = thumb ? imageFormat(thumb) : null;
    if (thumb && (!thumbMime || thumb.byteLength > ATTACHMENT_LIMITS.thumbMaxBytes))
      throw new AppError('invalid_input', `The thumbnail of ${up.name} is not a small PNG, JPEG, WebP or GIF image.`);
    return store.attachments.add({
      kind: 'image',
      name: up.name,
      mime: image,
      bytes,
      width: up.width,
      height: up.height,
      ...(thumb && thumbMime ? { thumb: { bytes: thumb, mime: thumbMime } } : {}),
    });
  }
  if (isPdf(bytes)) {
    const { text, pages, cut } = await extractPdfText(bytes, up.name);
    const ref = store.attachments.add({ kind: 'text', name: up.name, mime: 'application/pdf', bytes, text, pages });
    return cut ? { ...ref, cut } : ref;
  }
  let text: string | null;
  try {
    text = bytes.byteLength >= TEXT_IN_WORKER_BYTES ? (await textInWorker(bytes)).text : decodeText(bytes);
  } catch (err) {
    throw new AppError('invalid_input', `Could not read ${up.name} (${errorMessage(err)}).`);
  }
  if (text === null)
    throw new AppError(
      'invalid_input',
      `${up.name} is neither text, a PDF nor an image (PNG, JPEG, WebP, GIF), so the model could not read it.`,
    );
  const mime =
    up.mime.startsWith('text/') || up.mime.includes('json') || up.mime.includes('xml') ? up.mime : 'text/plain';
  return store.attachments.add({ kind: 'text', name: up.name, mime, bytes, text });
}
