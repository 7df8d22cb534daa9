import { ATTACHMENT_LIMITS, type AttachmentCut, type AttachmentRef } from '@threadline/protocol';
import { attachmentRoutes } from '../store/routes';

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
  /** Reading the file stopped at a limit of the runtime: what was kept (said under the strip). */
  cut?: AttachmentCut;
}

const KEEP_AS_IS = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

/**
 * A Blob's bytes, as attachments.add takes them (sent as bytes, never as base64: protocol's
 * binary.ts). Read by a FileReader, like base64Of: every page the renderer runs in has one.
 */
function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(new Uint8Array(r.result as ArrayBuffer));
    r.onerror = () => reject(r.error ?? new Error('read failed'));
    r.readAsArrayBuffer(blob);
  });
}

/** Bytes of a Blob as base64 (the browser encodes it: no string building in JS), for a small image's data URL. */
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

/**
 * A small copy of an image for the transcript and the composer: longest side ≤ thumbMaxSide,
 * WebP (keeps transparency), JPEG where the page cannot write WebP. Null when the image is small
 * enough to be its own thumbnail.
 */
async function thumbnailOf(
  source: Blob,
  width: number,
  height: number,
): Promise<{ blob: Blob; mime: 'image/webp' | 'image/jpeg' } | null> {
  const max = ATTACHMENT_LIMITS.thumbMaxSide;
  if (Math.max(width, height) <= max && source.size <= ATTACHMENT_LIMITS.thumbMaxBytes) return null;
  const scale = Math.min(1, max / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const bitmap = await createImageBitmap(source);
  try {
    for (const quality of [0.82, 0.6, 0.4]) {
      const blob = await canvasBlob(bitmap, w, h, 'image/webp', quality);
      const mime = blob.type === 'image/webp' ? 'image/webp' : 'image/jpeg';
      const out = mime === 'image/webp' ? blob : await canvasBlob(bitmap, w, h, 'image/jpeg', quality);
      if (out.size <= ATTACHMENT_LIMITS.thumbMaxBytes) return { blob: out, mime };
    }
    return null;
  } finally {
    bitmap.close();
  }
}

export const isImageFile = (f: File): boolean => f.type.startsWith('image/');

/**
 * Uploads one file: an image fitted first, with a thumbnail made from it (the thumbnail's data URL
 * is the composer's preview and is stored beside the image), any other file as it is (the host
 * reads text and PDFs).
 */
export async function uploadFile(file: File): Promise<{ ref: AttachmentRef; preview?: string; cut?: AttachmentCut }> {
  if (file.size > ATTACHMENT_LIMITS.fileMaxBytes) throw new Error('file_too_large');
  if (isImageFile(file)) {
    const { blob, width, height } = await fitImage(file);
    const small = await thumbnailOf(blob, width, height);
    const ref = await attachmentRoutes.add({
      name: file.name || 'image.png',
      mime: blob.type,
      data: await bytesOf(blob),
      width,
      height,
      ...(small ? { thumb: { mime: small.mime, data: await bytesOf(small.blob) } } : {}),
    });
    // The thumbnail, or the image small enough to be its own.
    const preview = small
      ? `data:${small.mime};base64,${await base64Of(small.blob)}`
      : `data:${ref.mime};base64,${await base64Of(blob)}`;
    thumbs.set(ref.id, Promise.resolve(preview));
    return { ref, preview };
  }
  const { cut, ...ref } = await attachmentRoutes.add({
    name: file.name,
    mime: file.type,
    data: await bytesOf(file),
  });
  return cut ? { ref, cut } : { ref };
}

/** Data URLs by attachment id, fetched once: full-size images, and thumbnails. */
const images = new Map<string, Promise<string | null>>();
const thumbs = new Map<string, Promise<string | null>>();

function cached(
  map: Map<string, Promise<string | null>>,
  id: string,
  load: () => Promise<string | null>,
): Promise<string | null> {
  let p = map.get(id);
  if (!p) {
    p = load().catch(() => {
      map.delete(id);
      return null;
    });
    map.set(id, p);
  }
  return p;
}

/** An image at full size (the viewer). */
export function imageUrl(id: string): Promise<string | null> {
  return cached(images, id, () => attachmentRoutes.get({ id }).then((r) => r.dataUrl));
}

/**
 * An image's thumbnail: the one stored with it, or, for an image stored without one (small
 * enough to be its own, or attached before thumbnails), made here once from the full image.
 */
export function thumbUrl(id: string, ref: AttachmentRef): Promise<string | null> {
  return cached(thumbs, id, async () => {
    const stored = (await attachmentRoutes.get({ id, thumb: true })).dataUrl;
    if (stored) return stored;
    const full = await imageUrl(id);
    if (!full) return null;
    // Decoded here: the page's CSP lets fetch() reach no data: URL.
    const comma = full.indexOf(',');
    const mime = full.slice(5, full.indexOf(';'));
    const blob = new Blob([Uint8Array.from(atob(full.slice(comma + 1)), (c) => c.charCodeAt(0))], { type: mime });
    const small = await thumbnailOf(blob, ref.width ?? 0, ref.height ?? 0);
    return small ? `data:${small.mime};base64,${await base64Of(small.blob)}` : full;
  });
}

/** Forgets a discarded attachment's cached images. */
export function forgetImages(id: string): void {
  images.delete(id);
  thumbs.delete(id);
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
