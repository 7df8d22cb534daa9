import * as z from 'zod';

/** Markers around the matched text in SearchHit.snippet (control characters no message contains). */
export const SEARCH_MARK = Object.freeze({ start: '\u0002', end: '\u0003' });

/** One message that matched a full-text search (search.messages). */
export const SearchHitSchema = z.object({
  sessionId: z.string(),
  sessionTitle: z.string(),
  messageId: z.string(),
  seq: z.number().int(),
  role: z.enum(['user', 'assistant']),
  createdAt: z.number().int(),
  /** The text around the match, each match wrapped in SEARCH_MARK.start / SEARCH_MARK.end. */
  snippet: z.string(),
  /** The hit is in a helper's messages: the session it belongs to (the helper is `sessionId`). */
  parentSessionId: z.string().optional(),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;
