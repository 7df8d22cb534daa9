// The memory part of @threadline/store's surface (CFPM facts, candidates, snapshots and the
// user's edits); types.ts re-exports it with the rest.
import type { FactCategory, FactStatus, MemoryCandidate, MemoryFact, MemorySnapshot } from '@threadline/protocol';

export type NewCandidate = Omit<MemoryCandidate, 'id' | 'sessionId' | 'createdAt'> & {
  id?: string;
  createdAt?: number;
};

export interface NewSnapshot {
  id?: string;
  compactionId?: string | null;
  content: string;
  factCount: number;
  createdAt?: number;
}

export interface MemoryRefresh {
  /**
   * The full next list of facts the engine manages on the active branch (what `facts()` gave it).
   * Auto facts (source cfpm_auto) of that branch that are missing from it are deleted, unless
   * pinned; another branch's facts are neither deleted nor updated. Listed facts are upserted by id; for
   * user facts only the engine's fields (confidence, evidenceCount, lastValidatedAt,
   * validationCommand, updatedAt) change. A user's pin or "forgotten" is never undone here.
   */
  facts: MemoryFact[];
  candidates: NewCandidate[];
  snapshot?: NewSnapshot;
}

export interface MemoryRefreshResult {
  facts: MemoryFact[];
  /** The branch's candidates after it, as `candidates()` lists them (newest first, up to the cap). */
  candidates: MemoryCandidate[];
  /** Rows removed to respect the caps. */
  trimmed: { facts: number; candidates: number; snapshots: number };
}

export const MEMORY_CAPS = Object.freeze({ autoFacts: 120, candidates: 800, snapshots: 100 });

export interface MemoryEditLogEntry {
  id: string;
  sessionId: string;
  factId: string;
  actor: 'user';
  action: 'create' | 'edit' | 'status';
  before: MemoryFact | null;
  after: MemoryFact;
  createdAt: number;
}

export interface FactEdit {
  id?: string;
  category: FactCategory;
  content: string;
  pinned?: boolean;
}

/**
 * What a caller holding the active branch in memory knows of it (the agent's session snapshot):
 * with it, a refresh reads no branch from SQLite (no walk over every message of the branch), only
 * the memory rows' anchors.
 */
export interface BranchHint {
  /** Whether a message is on the active branch. */
  onPath(messageId: string): boolean;
  /** What `forkSeq(sessionId)` answered for this branch (it changes only with the branch). */
  forkSeq: number;
}

export interface MemoryRepo {
  /**
   * The facts of the active branch (any status), oldest first: automatic facts anchored on it,
   * plus the session-wide ones (user-made, pinned, unanchored rows from before branches).
   * `allBranches` lists every fact of the session.
   */
  facts(sessionId: string, opts?: { allBranches?: boolean }): MemoryFact[];
  /** The active branch's candidates (plus unanchored ones), newest first; default limit 800. */
  candidates(sessionId: string, limit?: number, branch?: BranchHint): MemoryCandidate[];
  /** Oldest first. */
  snapshots(sessionId: string): MemorySnapshot[];
  /**
   * One transaction; enforces the caps of MEMORY_CAPS per branch. New automatic facts and the
   * candidates are anchored to the active leaf; only the active branch's automatic facts can be
   * updated or dropped: another branch's facts are never touched.
   */
  refresh(sessionId: string, next: MemoryRefresh, branch?: BranchHint): MemoryRefreshResult;
  /** The seq of the active branch's newest message another branch also goes through (-1: none). */
  forkSeq(sessionId: string): number;
  /** A user's create/edit (source 'user', confidence 1.0 on create). Logged in memory_edit_log. */
  upsertFact(sessionId: string, edit: FactEdit, actor?: 'user'): MemoryFact;
  /** A user's forget / restore / pin. Logged in memory_edit_log. */
  setStatus(id: string, status: FactStatus, pinned?: boolean): MemoryFact;
  /** Oldest first. */
  editLog(sessionId: string): MemoryEditLogEntry[];
}
