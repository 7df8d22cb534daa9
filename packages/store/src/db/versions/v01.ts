export const V1_CORE = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  -- user-visible messages, kept by append so listing sessions never scans history
  message_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);

CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
  content TEXT,
  tool_calls TEXT,          -- JSON array, OpenAI shape
  tool_call_id TEXT,
  name TEXT,
  kind TEXT NOT NULL DEFAULT 'normal',
  visible_user INTEGER NOT NULL DEFAULT 1,
  visible_agent INTEGER NOT NULL DEFAULT 1,
  tokens INTEGER,           -- cached count; the only column that changes after insert besides meta
  full_output TEXT,         -- the untruncated tool output beside the truncated content
  meta TEXT                 -- JSON object for the UI
);
CREATE UNIQUE INDEX idx_messages_session_seq ON messages(session_id, seq);

CREATE TABLE compactions (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  strategy TEXT NOT NULL,
  trigger TEXT NOT NULL,
  steps TEXT NOT NULL,        -- JSON StepReport[]
  hidden_ids TEXT NOT NULL,   -- JSON string[]
  inserted_ids TEXT NOT NULL, -- JSON string[]
  tokens_before INTEGER NOT NULL,
  tokens_after INTEGER NOT NULL,
  summary TEXT,
  instructions TEXT,
  after_seq INTEGER NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  undone_at INTEGER
);
CREATE INDEX idx_compactions_session ON compactions(session_id, created_at);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL        -- JSON
);

CREATE TABLE provider_profiles (
  id TEXT PRIMARY KEY,
  preset TEXT NOT NULL,
  name TEXT NOT NULL,
  base_url TEXT NOT NULL,
  model TEXT NOT NULL,
  context_window INTEGER NOT NULL,
  compaction_model TEXT,
  api_key_cipher TEXT,       -- only ever the encryptor's output in v1
  active INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE tool_approvals (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tool_name TEXT NOT NULL,
  policy TEXT NOT NULL CHECK (policy IN ('ask', 'auto', 'deny')),
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, tool_name)
);
`;
