import { ATTACHMENT_LIMITS, type AttachmentRef } from '@threadline/protocol';
import { call } from '../transport';

/** What the composer knows of one file while and after it uploads. */
export interface PendingAttachment {
  key: string;
  name: string;
  kind: 'image' | 'file';
  status: 'uploading' | 'ready' | 'error';
  /** An image's preview once fitted (a data URL: the page's CSP allows no blob: images). */
  preview?: string;
  ref?: AttachmentRef;
  error?: string;
}

const KEEP_AS_IS = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

/** Bytes of a Blob as base64 (the browser encodes it: no string building in JS). */
function base64Of(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => {
      const url = String(r.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    r.onerror = () => reject(r.error ?? new Error('read failed'));
    r.readAsDataURL(blob);
  });
}

function canvasBlob(bitmap: ImageBitmap, width: number, height: number, type: string, quality?: number): Promise<Blob> {
  if (typeof OffscreenCanvas !== 'undefined') {
    const c = new OffscreenCanvas(width, height);
    c.getContext('2d')!.drawImage(bitmap, 0, 0, width, height);
    return c.convertToBlob({ type, quality });
  }
  const c = document.createElement('canvas');
  c.width = width;
  c.height = height;
  c.getContext('2d')!.drawImage(bitmap, 0, 0, width, height);
  return new Promise((resolve, reject) =>
    c.toBlob((b) => (b ? resolve(b) : reject(new Error('encode failed'))), type, quality),
  );
}

/**
 * An image made to fit what vision providers take: longest side ≤ imageMaxSide, size ≤
 * imageMaxBytes. Within both, a PNG/JPEG/WebP/GIF is sent as it is (a GIF keeps its frames);
 * otherwise it is drawn on a canvas at the fitting size, PNG when that is small enough, else
 * JPEG at falling quality, then smaller, until it fits.
 */
export async function fitImage(file: Blob): Promise<{ blob: Blob; width: number; height: number }> {
  const bitmap = await createImageBitmap(file);
  try {
    const { width: w0, height: h0 } = bitmap;
    const max = ATTACHMENT_LIMITS.imageMaxSide;
    if (KEEP_AS_IS.has(file.type) && Math.max(w0, h0) <= max && file.size <= ATTACHMENT_LIMITS.imageMaxBytes)
      return { blob: file, width: w0, height: h0 };
    let scale = Math.min(1, max / Math.max(w0, h0));
    for (let round = 0; round < 6; round++) {
      const width = Math.max(1, Math.round(w0 * scale));
      const height = Math.max(1, Math.round(h0 * scale));
      const png =
        file.type === 'image/png' && round === 0 ? await canvasBlob(bitmap, width, height, 'image/png') : null;
      if (png && png.size <= ATTACHMENT_LIMITS.imageMaxBytes) return { blob: png, width, height };
      for (const quality of [0.9, 0.8, 0.65]) {
        const jpeg = await canvasBlob(bitmap, width, height, 'image/jpeg', quality);
        if (jpeg.size <= ATTACHMENT_LIMITS.imageMaxBytes) return { blob: jpeg, width, height };
      }
      scale *= 0.7;
    }
    throw new Error('image_too_large');
  } finally {
    bitmap.close();
  }
}

export const isImageFile = (f: File): boolean => f.type.startsWith('image/');

/**
 * Uploads one file: an image fitted first (its data URL is the composer's preview), any other
 * file as it is (the host reads text and PDFs).
 */
export async function uploadFile(file: File): Promise<{ ref: AttachmentRef; preview?: string }> {
  if (file.size > ATTACHMENT_LIMITS.fileMaxBytes) throw new Error('file_too_large');
  if (isImageFile(file)) {
    const { blob, width, height } = await fitImage(file);
    const data = await base64Of(blob);
    const ref = await call('attachments.add', { name: file.name || 'image.png', mime: blob.type, data, width, height });
    return { ref, preview: `data:${ref.mime};base64,${data}` };
  }
  return { ref: await call('attachments.add', { name: file.name, mime: file.type, data: await base64Of(file) }) };
}

/** Images by attachment id, as data URLs: a thumbnail and its full-size view fetch once. */
const images = new Map<string, Promise<string | null>>();
export function imageUrl(id: string): Promise<string | null> {
  let p = images.get(id);
  if (!p) {
    p = call('attachments.get', { id }).then(
      (r) => r.dataUrl,
      () => {
        images.delete(id);
        return null;
      },
    );
    images.set(id, p);
  }
  return p;
}

/**
 * A user message's text as the user wrote it: the blocks of its text attachments (appended by
 * the host after the text, one per file) are shown as chips instead.
 */
export function visibleUserText(content: string | null, refs: readonly AttachmentRef[]): string {
  const text = content ?? '';
  const first = refs.find((r) => r.kind === 'text');
  if (!first) return text;
  const idAt = text.indexOf(`" id="${first.id}" chars="`);
  const at = idAt < 0 ? -1 : text.lastIndexOf('<attachment name="', idAt);
  return at < 0 ? text : text.slice(0, at).trimEnd();
}
