/**
 * Version 22 (issue 34): files a sandboxed command left that make code run later, held for the
 * user until they keep or discard them; the copies live in the data folder (`held/<session>/<id>`).
 */
export const V22_HELD_FILES = `
CREATE TABLE held_files (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  folder TEXT NOT NULL,
  path TEXT NOT NULL,
  kind TEXT NOT NULL,
  reason TEXT NOT NULL,
  entries INTEGER,
  target TEXT,
  keepable INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_held_files_session ON held_files(session_id, created_at);
`;
