// CFPM session memory arrived after the core schema.
export const V2_MEMORY = `
CREATE TABLE memory_facts (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  category TEXT NOT NULL,
  content TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'stale', 'forgotten', 'superseded')),
  pinned INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL CHECK (source IN ('user', 'cfpm_auto')),
  confidence REAL NOT NULL,
  evidence_count INTEGER NOT NULL DEFAULT 1,
  last_validated_at INTEGER,
  validation_command TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX idx_memory_facts_session ON memory_facts(session_id, source);

CREATE TABLE memory_candidates (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  category TEXT NOT NULL,
  content TEXT NOT NULL,
  source TEXT NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('accepted', 'rejected')),
  reason TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_memory_candidates_session ON memory_candidates(session_id, created_at);

CREATE TABLE memory_snapshots (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  compaction_id TEXT REFERENCES compactions(id) ON DELETE SET NULL,
  content TEXT NOT NULL,
  fact_count INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_memory_snapshots_session ON memory_snapshots(session_id, created_at);

CREATE TABLE memory_edit_log (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  fact_id TEXT NOT NULL,       -- no FK: the log outlives a pruned fact
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  before TEXT,                 -- JSON MemoryFact | null
  after TEXT NOT NULL,         -- JSON MemoryFact
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_memory_edit_log_session ON memory_edit_log(session_id, created_at);
`;
