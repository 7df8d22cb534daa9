// Fact rows and the SQL that decides which facts belong to the active branch.
import type { MemoryFact, FactStatus } from '@threadline/protocol';

export interface FactRow {
  id: string;
  session_id: string;
  category: MemoryFact['category'];
  content: string;
  status: FactStatus;
  pinned: number;
  source: MemoryFact['source'];
  confidence: number;
  evidence_count: number;
  last_validated_at: number | null;
  validation_command: string | null;
  created_at: number;
  updated_at: number;
  anchor_id: string | null;
}

export const toFact = (r: FactRow): MemoryFact => ({
  id: r.id,
  sessionId: r.session_id,
  category: r.category,
  content: r.content,
  status: r.status,
  pinned: r.pinned === 1,
  source: r.source,
  confidence: r.confidence,
  evidenceCount: r.evidence_count,
  lastValidatedAt: r.last_validated_at,
  validationCommand: r.validation_command,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toRow = (f: MemoryFact, anchorId: string | null = null): FactRow => ({
  id: f.id,
  session_id: f.sessionId,
  category: f.category,
  content: f.content,
  status: f.status,
  pinned: f.pinned ? 1 : 0,
  source: f.source,
  confidence: f.confidence,
  evidence_count: f.evidenceCount,
  last_validated_at: f.lastValidatedAt,
  validation_command: f.validationCommand,
  created_at: f.createdAt,
  updated_at: f.updatedAt,
  anchor_id: anchorId,
});

/** Whether the engine's version differs from the stored row in what the engine manages. */
export const engineChanged = (r: FactRow, f: MemoryFact): boolean =>
  r.category !== f.category ||
  r.content !== f.content ||
  r.status !== f.status ||
  r.confidence !== f.confidence ||
  r.evidence_count !== f.evidenceCount ||
  r.last_validated_at !== f.lastValidatedAt ||
  r.validation_command !== f.validationCommand;

// Automatic memory belongs to the branch it was learned on (anchor on the active path); rows
// from before branches (no anchor) stay session-wide. PATH_CTE binds @sessionId.
export const ON_PATH = '(anchor_id IS NULL OR anchor_id IN (SELECT id FROM path))';
export const HIDDEN = 'id IN (SELECT fact_id FROM memory_fact_hides WHERE anchor_id IN (SELECT id FROM path))';
// User-made and pinned facts are the user's: every branch sees them.
export const VISIBLE = `(source = 'user' OR pinned = 1 OR (${ON_PATH} AND NOT ${HIDDEN}))`;
// Learned at or before the branch's last fork (@forkSeq): other branches hold it too.
export const SHARED =
  '(anchor_id IS NOT NULL AND anchor_id IN (SELECT id FROM path) AND (SELECT seq FROM messages WHERE id = anchor_id) <= @forkSeq)';
