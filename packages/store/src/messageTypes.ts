// The messages part of @threadline/store's surface (a session's history, its branches and versions);
// types.ts re-exports it with the rest.
import type { ChatMessage, MessageKind, SearchHit, StoredMessage, Visibility } from '@threadline/protocol';

/** A message to append. id, seq and createdAt are assigned by the store unless given. */
export interface NewMessage extends ChatMessage {
  /** Optional caller-chosen id (e.g. the id already used in streaming `message.delta` events). */
  id?: string;
  /** Default 'normal'. */
  kind?: MessageKind;
  /** Default visible to both (compactions.apply defaults inserted messages to agent-only). */
  visibility?: Visibility;
  tokens?: number | null;
  fullOutput?: string | null;
  meta?: Record<string, unknown>;
  createdAt?: number;
}

export interface ListMessagesOptions {
  /** Include `fullOutput` (can be up to 1 MiB per tool result). Default true. */
  fullOutput?: boolean;
  /** Only messages with seq > afterSeq. */
  afterSeq?: number;
}

export interface MessageVersions {
  /** 1-based place among the versions, oldest first. */
  index: number;
  count: number;
  ids: string[];
}

export interface MessagesRepo {
  /** The active branch of a session (see switchTo), ordered by seq (oldest first). */
  list(sessionId: string, opts?: ListMessagesOptions): StoredMessage[];
  /** Every message of every branch, ordered by seq. */
  listAll(sessionId: string): StoredMessage[];
  get(id: string): StoredMessage | null;
  /**
   * One transaction: every message or none. Assigns id, seq (contiguous), createdAt; touches the
   * session. The first message follows `parentId` (default: the active leaf; null: a new first
   * message), each next one the one before; the last becomes the active leaf.
   */
  append(sessionId: string, msgs: NewMessage[], opts?: { parentId?: string | null }): StoredMessage[];
  /** The last message of the active branch (null: none yet). */
  leaf(sessionId: string): string | null;
  /** Messages that have other versions (same parent, same slot: request or reply), by id. */
  versions(sessionId: string): Record<string, MessageVersions>;
  /**
   * Shows the branch through message `id`: its newest descendant becomes the active leaf (with
   * `exact`, `id` itself, so the next append continues from it). Returns the new leaf.
   */
  switchTo(sessionId: string, id: string, opts?: { exact?: boolean }): string;
  /** Full-text search over user and assistant messages of every session, newest first. */
  search(query: string, opts?: { limit?: number }): SearchHit[];
  /** Cache of token counts: the engine persists what it counted so a reopened session recounts nothing. */
  setTokens(updates: { id: string; tokens: number | null }[]): void;
  /**
   * Replace a message's UI metadata (tool status, duration, approval decision). History is
   * append-only; meta is the one place the runtime records what happened *to* a message later
   * (a tool call approved or denied after it was stored). It never reaches the model.
   */
  setMeta(id: string, meta: Record<string, unknown>): StoredMessage;
  count(sessionId: string): number;
  /** seq of the newest message, 0 for an empty session. */
  lastSeq(sessionId: string): number;
}
