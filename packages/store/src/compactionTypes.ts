// The compactions part of @threadline/store's surface;
// types.ts re-exports it with the rest.
import type { CompactionRecord, StepReport, StoredMessage, Strategy, Trigger } from '@threadline/protocol';
import type { NewMessage } from './messageTypes';

export interface NewCompaction {
  id?: string;
  strategy: Strategy;
  trigger: Trigger;
  steps: StepReport[];
  /** History ids the agent no longer sees; all must belong to the session. */
  hiddenIds: string[];
  tokensBefore: number;
  tokensAfter: number;
  summary?: string | null;
  instructions?: string | null;
  /** Default: the session's last seq before the inserted messages. */
  afterSeq?: number;
}

export interface CompactionsRepo {
  /**
   * Atomically: append `inserted` (default visibility agent-only, meta.compactionId set) and
   * store the record with their ids as insertedIds. Either both exist afterwards or neither.
   */
  apply(
    sessionId: string,
    record: NewCompaction,
    inserted: NewMessage[],
  ): { record: CompactionRecord; inserted: StoredMessage[] };
  /** Deactivate the newest active compaction of the active branch; null when there is none. */
  undoLast(sessionId: string): CompactionRecord | null;
  /** Every record of the active branch (made while its messages were the session's), oldest first. */
  list(sessionId: string): CompactionRecord[];
  /** Every record of every branch, oldest first. */
  listAll(sessionId: string): CompactionRecord[];
  /** Active records of the active branch, oldest first. */
  active(sessionId: string): CompactionRecord[];
  get(id: string): CompactionRecord | null;
}
