/** Markers around the matched text in SearchHit.snippet (control characters no message contains). */
export const SEARCH_MARK = Object.freeze({ start: '\u0002', end: '\u0003' });

/** One message that matched a full-text search (search.messages). */
export interface SearchHit {
  sessionId: string;
  sessionTitle: string;
  messageId: string;
  seq: number;
  role: 'user' | 'assistant';
  createdAt: number;
  /** The text around the match, each match wrapped in SEARCH_MARK.start / SEARCH_MARK.end. */
  snippet: string;
}
