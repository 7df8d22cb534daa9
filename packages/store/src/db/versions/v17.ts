/**
 * Version 17 (issue 24): the tokens of every model call (summaries marked, linked to their
 * compaction) and each profile's own prices. A call keeps its row when its session is deleted:
 * the daily totals are the user's spending, not the session's.
 */
export const V17_MODEL_CALLS = `
CREATE TABLE model_calls (
  id INTEGER PRIMARY KEY,
  session_id TEXT,
  profile_id TEXT,
  model TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('chat', 'summary', 'title')),
  compaction_id TEXT,
  prompt_tokens INTEGER NOT NULL,
  cached_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_model_calls_session ON model_calls(session_id, created_at);
CREATE INDEX idx_model_calls_created ON model_calls(created_at);

CREATE TABLE model_prices (
  profile_id TEXT NOT NULL REFERENCES provider_profiles(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  input REAL NOT NULL,
  cached_input REAL NOT NULL,
  output REAL NOT NULL,
  PRIMARY KEY (profile_id, model)
);
`;
