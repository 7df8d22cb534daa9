// The attachments part of @threadline/store's surface;
// types.ts re-exports it with the rest.
import type { AttachmentRef } from '@threadline/protocol';

export interface NewAttachment {
  kind: AttachmentRef['kind'];
  name: string;
  mime: string;
  /** The file as given (an image already resized); an image's are kept, a text's only counted. */
  bytes: Uint8Array;
  width?: number;
  height?: number;
  pages?: number;
  /** A text attachment's text (a text file's, a PDF's extracted text, a long paste). */
  text?: string;
  /** An image's thumbnail (its bytes and type), kept beside the image. */
  thumb?: { bytes: Uint8Array; mime: string };
}

export type StoredAttachment = AttachmentRef;

export interface AttachmentsRepo {
  /**
   * Stores the file once per content: the same bytes again give the same id (with this name).
   * Asynchronous so that no step holds the caller's thread long: the bytes are hashed a megabyte
   * at a time, a text compressed on libuv's pool, and only the insert is synchronous.
   */
  add(a: NewAttachment): Promise<AttachmentRef>;
  get(id: string): StoredAttachment | null;
  /** An image's bytes (null for a text or an unknown id). */
  bytes(id: string): Buffer | null;
  /** A text attachment's whole text (null for an image or an unknown id). */
  text(id: string): string | null;
  /** An image's thumbnail (null when it has none: stored before thumbnails, or a text). */
  thumb(id: string): { bytes: Buffer; mime: string } | null;
  /**
   * Deletes an attachment no message refers to (one removed from the composer before sending);
   * false when a message refers to it or it does not exist.
   */
  discard(id: string): boolean;
  /**
   * Deletes the attachments no message refers to that were last uploaded before `before` (ms):
   * files attached in a composer and never sent. Returns how many.
   */
  dropUnreferenced(before: number): number;
}
