/**
 * A checkpoint's changes may be `overwritten`: no longer all in the files after an undo or redo of
 * another turn (issue 37). SQLite cannot change a CHECK, so the table is built again with the same
 * rows; checkpoints are also found by folder (every session's turns in one folder share its files).
 */
export const V19_CHECKPOINT_STATES = `
CREATE TABLE checkpoints_v19 (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  anchor_id TEXT,
  user_message_id TEXT,
  folder TEXT NOT NULL,
  before_commit TEXT NOT NULL,
  after_commit TEXT NOT NULL,
  files_changed INTEGER NOT NULL,
  files TEXT NOT NULL,
  skipped TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('applied', 'undone', 'overwritten')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO checkpoints_v19 (id, session_id, anchor_id, user_message_id, folder, before_commit, after_commit,
  files_changed, files, skipped, state, created_at, updated_at)
  SELECT id, session_id, anchor_id, user_message_id, folder, before_commit, after_commit,
    files_changed, files, skipped, state, created_at, updated_at FROM checkpoints ORDER BY rowid;
DROP TABLE checkpoints;
ALTER TABLE checkpoints_v19 RENAME TO checkpoints;
CREATE INDEX idx_checkpoints_session ON checkpoints(session_id, created_at);
CREATE INDEX idx_checkpoints_folder ON checkpoints(folder, created_at);
`;
