/**
 * Version 24 (issue 39): helpers (the delegate tool). A helper is a session of its own, linked to
 * the session whose call started it (`parent_id`: hidden from the list, deleted with it), and a
 * `helpers` row with its task, role, model, status and report.
 */
export const V24_HELPERS = `
ALTER TABLE sessions ADD COLUMN parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE;
CREATE INDEX idx_sessions_parent ON sessions(parent_id) WHERE parent_id IS NOT NULL;
CREATE TABLE helpers (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  parent_session_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  task TEXT NOT NULL,
  role TEXT NOT NULL,
  model TEXT NOT NULL,
  tools TEXT NOT NULL DEFAULT '[]',  -- JSON string[]
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'stopped', 'failed', 'interrupted')),
  report TEXT,
  error TEXT,
  returned_tokens INTEGER,
  created_at INTEGER NOT NULL,
  ended_at INTEGER
);
CREATE INDEX idx_helpers_parent ON helpers(parent_session_id, created_at, idx);
CREATE INDEX idx_helpers_open ON helpers(status) WHERE status IN ('queued', 'running');
`;
