import * as z from 'zod';
import { ATTACHMENT_IMAGE_MIMES, ATTACHMENT_LIMITS, AttachmentAddedSchema, AttachmentRefSchema } from '../attachments';
import { id, type RouteMap } from './define';

/** base64 of at most fileMaxBytes bytes. */
const MAX_BASE64 = Math.ceil(ATTACHMENT_LIMITS.fileMaxBytes / 3) * 4;

/** Attachments: stored once (by content hash), referenced by id from the messages that carry them. */
export const attachmentRoutes = {
  /**
   * Stores a file the user pasted, dropped or picked. Images must be resized already (the
   * renderer does it with a canvas): png/jpeg/webp/gif within ATTACHMENT_LIMITS. Text files and
   * PDFs become text here (PDF text extracted by unpdf, off the request thread, within the
   * extract limits of ATTACHMENT_LIMITS; `cut` says which one stopped it and what was kept).
   */
  'attachments.add': {
    input: z.object({
      name: z.string().trim().min(1).max(300),
      mime: z.string().max(100),
      /** The file's bytes, base64. */
      data: z.string().min(1).max(MAX_BASE64),
      width: z.number().int().positive().max(ATTACHMENT_LIMITS.imageMaxSide).optional(),
      height: z.number().int().positive().max(ATTACHMENT_LIMITS.imageMaxSide).optional(),
      /** An image's thumbnail, made beside the resized image (longest side ≤ thumbMaxSide), base64. */
      thumb: z
        .object({
          mime: z.enum(ATTACHMENT_IMAGE_MIMES),
          data: z
            .string()
            .min(1)
            .max(Math.ceil(ATTACHMENT_LIMITS.thumbMaxBytes / 3) * 4),
        })
        .optional(),
    }),
    output: AttachmentAddedSchema,
  },
  /**
   * Removed from the composer before it was sent: deleted unless a message refers to it (the
   * start-up sweep deletes those left a day or more).
   */
  'attachments.discard': {
    input: z.object({ id }),
    output: z.object({ deleted: z.boolean() }),
  },
  /**
   * One attachment: an image as a data URL (full size, or its thumbnail with `thumb`: null when
   * it has none), a text as text (from `offset`, at most `limit` characters).
   */
  'attachments.get': {
    input: z.object({
      id,
      thumb: z.boolean().optional(),
      offset: z.number().int().nonnegative().optional(),
      limit: z.number().int().positive().max(1_000_000).optional(),
    }),
    output: z.object({
      ref: AttachmentRefSchema,
      dataUrl: z.string().nullable(),
      text: z.string().nullable(),
    }),
  },
} satisfies RouteMap;
