/**
 * Checkpoints of a session's working folder (issue 23): the commits of the shadow repository
 * (in the data folder) before and after a turn that changed files, what the turn changed
 * (`files`, JSON CheckpointFile[]) and what the snapshots left out (`skipped`, JSON).
 */
export const V14_CHECKPOINTS = `
CREATE TABLE checkpoints (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  anchor_id TEXT,              -- the turn's last message (no FK: history is append-only anyway)
  user_message_id TEXT,
  folder TEXT NOT NULL,
  before_commit TEXT NOT NULL,
  after_commit TEXT NOT NULL,
  files_changed INTEGER NOT NULL,
  files TEXT NOT NULL,
  skipped TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('applied', 'undone')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX idx_checkpoints_session ON checkpoints(session_id, created_at);
`;
