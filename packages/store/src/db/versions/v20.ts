/**
 * Version 20 (issue 40): project memory, one per working folder's project (its root's realpath):
 * candidates for the inbox and the facts the user accepted, each with its evidence, the state its
 * last check found, and the correction that superseded it. One row per fact of a project
 * (`fact_key`, protocol's projectFactKey); a rejected row stays so the same candidate is not
 * proposed again.
 */
export const V20_PROJECT_MEMORY = `
CREATE TABLE project_facts (
  id TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('command', 'path', 'instruction', 'decision')),
  content TEXT NOT NULL,
  fact_key TEXT NOT NULL,
  detail TEXT,
  status TEXT NOT NULL CHECK (status IN ('candidate', 'accepted', 'rejected', 'forgotten', 'superseded')),
  pinned INTEGER NOT NULL DEFAULT 0,
  stale TEXT CHECK (stale IN ('missing', 'changed', 'expired', 'outside')),
  source TEXT NOT NULL CHECK (source IN ('session', 'user', 'import')),
  evidence TEXT NOT NULL DEFAULT '[]',   -- JSON ProjectEvidence[], newest first, at most 5
  fingerprint TEXT,                       -- JSON PathFingerprint of a path fact
  superseded_by TEXT,
  verified_at INTEGER NOT NULL,
  checked_at INTEGER,
  decided_at INTEGER,                     -- when the user accepted, rejected, forgot or restored it
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX idx_project_facts_key ON project_facts(project, fact_key);
CREATE INDEX idx_project_facts_status ON project_facts(project, status, created_at);
`;
