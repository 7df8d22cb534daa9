// zod/mini, as messages.ts (the context engine reads attachment refs of messages).
import * as z from 'zod/mini';

/**
 * Limits of attachments. Images are resized by the renderer (a canvas) before they are sent, so
 * the longest side and the size fit what vision providers take (OpenAI: 2048 px, ~5 MB per image
 * is safe for every provider with an OpenAI-compatible endpoint).
 */
export const ATTACHMENT_LIMITS = Object.freeze({
  /** Longest side of an image sent to a provider, in pixels. */
  imageMaxSide: 2048,
  /** Bytes of one image after resizing. */
  imageMaxBytes: 5 * 1024 * 1024,
  /** Bytes of a file (text or PDF) before extraction. */
  fileMaxBytes: 25 * 1024 * 1024,
  /** Characters of a file's text given to the model in the message; the rest is read by pages. */
  textInlineChars: 60_000,
  /** Attachments of one message. */
  perMessage: 10,
  /** Longest side of an image's thumbnail (the transcript shows it 160 px wide: 2× for sharp screens). */
  thumbMaxSide: 320,
  /** Bytes of a thumbnail. */
  thumbMaxBytes: 256 * 1024,
  /**
   * Reading a PDF's text (or decoding a large text file) off the request thread stops at the
   * first of these; what was read by then is kept and the user told (AttachmentCut).
   */
  extractSeconds: 30,
  extractMemoryMb: 256,
  extractPages: 2000,
  extractChars: 10_000_000,
});

export const ATTACHMENT_IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;

export const AttachmentKindSchema = z.enum(['image', 'text']);
export type AttachmentKind = z.infer<typeof AttachmentKindSchema>;

/**
 * What a message keeps of an attachment (in `meta.attachments`), and what attachments.add
 * answers: the bytes stay in the attachments table, stored once per content hash. `text` is a
 * text file, a PDF's extracted text, or a long paste kept whole.
 */
export const AttachmentRefSchema = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(200)),
  kind: AttachmentKindSchema,
  name: z.string().check(z.maxLength(300)),
  mime: z.string().check(z.maxLength(100)),
  /** Bytes as stored (an image after resizing; a file as given). */
  size: z.int().check(z.nonnegative()),
  width: z.optional(z.int().check(z.positive())),
  height: z.optional(z.int().check(z.positive())),
  /** text: characters of the whole text. */
  chars: z.optional(z.int().check(z.nonnegative())),
  /** PDF: pages. */
  pages: z.optional(z.int().check(z.nonnegative())),
});
export type AttachmentRef = z.infer<typeof AttachmentRefSchema>;

/**
 * Reading a file stopped at a limit (ATTACHMENT_LIMITS.extract*): which one, and what was kept.
 * `totalPages` is absent when the PDF could not even be opened within the limit.
 */
export const AttachmentCutSchema = z.object({
  limit: z.enum(['time', 'memory', 'pages', 'chars']),
  keptPages: z.int().check(z.nonnegative()),
  totalPages: z.optional(z.int().check(z.nonnegative())),
});
export type AttachmentCut = z.infer<typeof AttachmentCutSchema>;

/** What attachments.add answers: the stored attachment, and when reading it stopped at a limit, which. */
export const AttachmentAddedSchema = z.object({ ...AttachmentRefSchema.shape, cut: z.optional(AttachmentCutSchema) });
export type AttachmentAdded = z.infer<typeof AttachmentAddedSchema>;

/** The opening line of a text attachment's block in a message's content (the renderer shows a chip for it). */
export const ATTACHMENT_BLOCK_OPEN = '<attachment ';
export const ATTACHMENT_BLOCK_CLOSE = '</attachment>';
