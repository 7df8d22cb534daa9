// Schema migrations by `PRAGMA user_version`. Each migration runs in one transaction together with
// the version bump, so a crash mid-migration leaves the previous version intact. Never edit a
// migration that has shipped: add a new one.
import type Database from 'better-sqlite3';
import { RECOUNT_SQL } from './branchSql';
import { packOutput } from './outputCodec';
import { migrateApprovalsToRules, V21_RULES } from './rulesMigration';

export interface Migration {
  version: number;
  description: string;
  sql: string;
  /** Work SQL cannot do (compressing rows), run after `sql` in the same transaction. */
  run?: (db: Database.Database) => void;
}

const V1_CORE = `
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

// CFPM session memory arrived after the core schema.
const V2_MEMORY = `
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

// Browser mode on a headless box has no keychain: keys may be stored in plain text there, and the
// row must say so. Existing keys were all encrypted. Also: "undo last" looks up active records.
const V3_KEY_STORAGE = `
ALTER TABLE provider_profiles ADD COLUMN key_storage TEXT NOT NULL DEFAULT 'none'
  CHECK (key_storage IN ('encrypted', 'plaintext', 'none'));
UPDATE provider_profiles SET key_storage = 'encrypted' WHERE api_key_cipher IS NOT NULL;
CREATE INDEX idx_compactions_active ON compactions(session_id, active);
`;

// Full tool outputs (up to 1 MiB each) sat inside the message rows, so reading a session's history
// walked their overflow pages even when it did not select them (meta came after them): about five
// times slower. They move to their own table, read only when asked for.
const V4_MESSAGE_OUTPUTS = `
CREATE TABLE message_outputs (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  full_output TEXT NOT NULL
);
INSERT INTO message_outputs (message_id, full_output) SELECT id, full_output FROM messages WHERE full_output IS NOT NULL;
ALTER TABLE messages DROP COLUMN full_output;
`;

// What the agent may touch (issue 12): each session has its working folder (NULL: the default,
// resolved by the runtime), and running tool processes are recorded so a restart after a crash
// can end them and mark their turn.
const V5_AGENT_REACH = `
ALTER TABLE sessions ADD COLUMN working_folder TEXT;
CREATE TABLE tool_processes (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tool_call_id TEXT NOT NULL,
  pid INTEGER NOT NULL,
  pgid INTEGER,              -- the process group (POSIX), killed whole
  command TEXT NOT NULL,
  host_pid INTEGER NOT NULL, -- the app process that started it
  started_at INTEGER NOT NULL
);
`;

/**
 * Migration 6's search index: every message's content, positions included. Kept as it shipped (a
 * file at versions 6 to 8 rebuilds this one when it is missing); SEARCH_INDEX_SQL replaced it.
 */
const SEARCH_INDEX_V6_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(content, content='messages', content_rowid='rowid', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS messages_fts_ai AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_ad AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
`;

// Branches (edit and resend, regenerate, retry) keep history append-only: every message points at
// the one before it on its branch, and the session remembers the leaf of the branch it shows. A
// compaction belongs to the branch whose leaf it saw (anchor_id). Existing history is one line.
// Full-text search: an FTS5 index over messages.content, trigram-tokenized so Chinese (no spaces)
// matches too, kept by triggers in the same transaction as every message write.
const V6_BRANCHES_SEARCH = `
ALTER TABLE messages ADD COLUMN parent_id TEXT;
UPDATE messages SET parent_id = (
  SELECT p.id FROM messages p WHERE p.session_id = messages.session_id AND p.seq < messages.seq ORDER BY p.seq DESC LIMIT 1
);
CREATE INDEX idx_messages_parent ON messages(parent_id);
ALTER TABLE sessions ADD COLUMN active_leaf_id TEXT;
UPDATE sessions SET active_leaf_id = (SELECT m.id FROM messages m WHERE m.session_id = sessions.id ORDER BY m.seq DESC LIMIT 1);
ALTER TABLE compactions ADD COLUMN anchor_id TEXT;
UPDATE compactions SET anchor_id = (
  SELECT m.id FROM messages m WHERE m.session_id = compactions.session_id AND m.seq <= compactions.after_seq ORDER BY m.seq DESC LIMIT 1
);
${SEARCH_INDEX_V6_SQL}
`;

// MCP servers (tools from the ecosystem). Env values and headers often hold tokens: they are one
// sealed JSON blob like an API key; their names stay readable so listing never decrypts.
const V7_MCP_SERVERS = `
CREATE TABLE mcp_servers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  transport TEXT NOT NULL CHECK (transport IN ('stdio', 'http')),
  command TEXT,
  args TEXT NOT NULL DEFAULT '[]',       -- JSON string[]
  url TEXT,
  env_names TEXT NOT NULL DEFAULT '[]',  -- JSON string[]
  header_names TEXT NOT NULL DEFAULT '[]',
  secrets_cipher TEXT,                   -- sealed JSON {env, headers}
  secret_storage TEXT NOT NULL DEFAULT 'none' CHECK (secret_storage IN ('encrypted', 'plaintext', 'none')),
  enabled INTEGER NOT NULL DEFAULT 1,
  startup TEXT NOT NULL DEFAULT 'lazy' CHECK (startup IN ('lazy', 'launch')),
  auto_approve TEXT NOT NULL DEFAULT 'false', -- JSON true | false | string[]
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
`;

// Automatic memory belongs to the branch it was learned on: facts and candidates are anchored to
// the branch leaf of their refresh. Rows from before stay unanchored, i.e. session-wide.
const V8_MEMORY_BRANCHES = `
ALTER TABLE memory_facts ADD COLUMN anchor_id TEXT;
ALTER TABLE memory_candidates ADD COLUMN anchor_id TEXT;
-- A fact learned before a fork belongs to every branch from there: a branch that changes or drops
-- it hides it from the branches through its leaf (and keeps a changed copy) instead of editing it.
CREATE TABLE memory_fact_hides (
  fact_id TEXT NOT NULL REFERENCES memory_facts(id) ON DELETE CASCADE,
  anchor_id TEXT NOT NULL,
  PRIMARY KEY (fact_id, anchor_id)
);
`;

/** What search.messages searches: the user's and the assistant's messages (the conversation). */
const SEARCHABLE_ROW = (r: string): string =>
  `${r}.visible_user = 1 AND ${r}.kind = 'normal' AND ${r}.role IN ('user', 'assistant')`;

/**
 * The search index (from version 9) and the triggers that keep it, in the same transaction as every
 * message write. External content: the text is stored once, in messages, and the index covers only
 * the searchable rows (the view; role, kind and visibility never change after insert). Trigram-
 * tokenized so Chinese (no spaces) matches too; detail=none keeps no positions (search runs LIKE,
 * which the trigram index answers without them), columnsize=0 no per-row sizes (no ranking).
 * Also run by ensureSearchIndex when the index is missing. The store VACUUMs only once, after
 * migration 9 (VACUUM could renumber the implicit rowids the index points at), and rebuilds it then.
 */
export const SEARCH_INDEX_SQL = `
CREATE VIEW IF NOT EXISTS messages_searchable AS
  SELECT rowid AS rid, content FROM messages m WHERE ${SEARCHABLE_ROW('m')};
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(content, content='messages_searchable', content_rowid='rid',
  tokenize='trigram', detail='none', columnsize=0);
CREATE TRIGGER IF NOT EXISTS messages_fts_ai AFTER INSERT ON messages WHEN ${SEARCHABLE_ROW('new')} BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER IF NOT EXISTS messages_fts_ad AFTER DELETE ON messages WHEN ${SEARCHABLE_ROW('old')} BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
`;

const DROP_SEARCH_INDEX = `
DROP TRIGGER IF EXISTS messages_fts_ai;
DROP TRIGGER IF EXISTS messages_fts_ad;
DROP TABLE IF EXISTS messages_fts;
DROP VIEW IF EXISTS messages_searchable;
`;

// A smaller file (issue 14): full tool outputs compressed (a BLOB, see outputCodec; read only on
// request), and a search index over the conversation's text only, without positions. The index of
// version 6 was as large as the text it covered, tool results included, which search never shows.
const V9_COMPACT_STORE = `
CREATE TABLE message_outputs_packed (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  full_output BLOB NOT NULL   -- outputCodec.packOutput(text)
);
${DROP_SEARCH_INDEX}
${SEARCH_INDEX_SQL}
`;

function packExistingOutputs(db: Database.Database): void {
  // better-sqlite3 cannot write while a statement iterates: the rows are packed inside one statement.
  db.function('threadline_pack_output', { deterministic: true }, (text: unknown) => packOutput(String(text)));
  db.exec(`
    INSERT INTO message_outputs_packed (message_id, full_output)
      SELECT message_id, threadline_pack_output(full_output) FROM message_outputs;
    DROP TABLE message_outputs;
    ALTER TABLE message_outputs_packed RENAME TO message_outputs;
  `);
}

// MCP servers run in their own folder (null: a neutral one under the data folder) with an
// allow-list of the app's environment; the tools a server offers are pinned by a hash of their
// description and schema, so a changed one waits for the user before the model sees it.
const V10_MCP_PINS = `
ALTER TABLE mcp_servers ADD COLUMN cwd TEXT;
ALTER TABLE mcp_servers ADD COLUMN env_allow TEXT NOT NULL DEFAULT '[]'; -- JSON string[]
CREATE TABLE mcp_tool_pins (
  server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
  tool TEXT NOT NULL,
  hash TEXT NOT NULL,          -- sha256 of the tool's name, description and input schema
  description TEXT NOT NULL,   -- as approved, for the "changed" view
  pinned_at INTEGER NOT NULL,
  PRIMARY KEY (server_id, tool)
);
`;

/** The migration that makes the file smaller: an upgraded file then gives the space back once. */
export const COMPACT_STORE_VERSION = 9;

/**
 * Gives the pages freed by migration 9 back to the file system (a file never shrinks by itself).
 * VACUUM may renumber the implicit rowids the search index points at, so the index is dropped
 * after it and ensureSearchIndex rebuilds it from the messages (also on the next open, should
 * that fail now); nothing else refers to a rowid. A VACUUM that fails (a full disk) changes
 * nothing: the file just stays larger. Runs outside any transaction.
 */
export function reclaimSpace(db: Database.Database): void {
  try {
    db.exec('VACUUM');
  } catch {
    return;
  }
  db.exec(DROP_SEARCH_INDEX);
}

/**
 * The OS sandbox (issue 21): the `sandboxed` approval policy (SQLite cannot change a CHECK, so
 * tool_approvals is rebuilt with its rows), and each session's "allow network for commands".
 */
const V11_SANDBOX = `
CREATE TABLE tool_approvals_v10 (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tool_name TEXT NOT NULL,
  policy TEXT NOT NULL CHECK (policy IN ('ask', 'sandboxed', 'auto', 'deny')),
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, tool_name)
);
INSERT INTO tool_approvals_v10 (session_id, tool_name, policy, updated_at)
  SELECT session_id, tool_name, policy, updated_at FROM tool_approvals;
DROP TABLE tool_approvals;
ALTER TABLE tool_approvals_v10 RENAME TO tool_approvals;
CREATE TABLE session_sandbox (
  session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  network INTEGER NOT NULL CHECK (network IN (0, 1)),
  updated_at INTEGER NOT NULL
);
`;
/** The session list counts the conversation only (requests and answers with text): every session recounted. */
function recountConversations(db: Database.Database): void {
  const recount = db.prepare<[{ sessionId: string }]>(RECOUNT_SQL);
  for (const { id } of db.prepare<[], { id: string }>('SELECT id FROM sessions').all()) recount.run({ sessionId: id });
}
// A session's own system prompt (issue 23): the user's instructions for that session alone, added
// to the system prompt after the base prompt; NULL when it has none.
const V13_SESSION_PROMPT = `
ALTER TABLE sessions ADD COLUMN system_prompt TEXT;
`;
/**
 * Checkpoints of a session's working folder (issue 23): the commits of the shadow repository
 * (in the data folder) before and after a turn that changed files, what the turn changed
 * (`files`, JSON CheckpointFile[]) and what the snapshots left out (`skipped`, JSON).
 */
const V14_CHECKPOINTS = `
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
/**
 * The window a provider stated in a context-limit error, smaller than the profile's (issue 22):
 * the runtime works with it until the user undoes it in the profile form.
 */
const V15_LEARNED_WINDOW = `ALTER TABLE provider_profiles ADD COLUMN learned_context_window INTEGER;`;
// Attachments (issue 26): each file's bytes stored once, by content hash, referenced by id from the
// messages that carry it (meta.attachments); a session's own provider profile and model.
const V16_ATTACHMENTS_SESSION_MODEL = `
CREATE TABLE attachments (
  id TEXT PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,      -- sha256 of kind and bytes: the same file is stored once
  kind TEXT NOT NULL CHECK (kind IN ('image', 'text')),
  name TEXT NOT NULL,             -- the name it was first stored under (each message keeps its own)
  mime TEXT NOT NULL,
  size INTEGER NOT NULL,
  width INTEGER,
  height INTEGER,
  pages INTEGER,
  chars INTEGER,
  data BLOB,                      -- an image's bytes
  text BLOB,                      -- a text's or PDF's text, outputCodec.packOutput
  created_at INTEGER NOT NULL
);
ALTER TABLE sessions ADD COLUMN profile_id TEXT;
ALTER TABLE sessions ADD COLUMN model TEXT;
`;
/**
 * Version 17 (issue 24): the tokens of every model call (summaries marked, linked to their
 * compaction) and each profile's own prices. A call keeps its row when its session is deleted:
 * the daily totals are the user's spending, not the session's.
 */
const V17_MODEL_CALLS = `
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

/**
 * Version 18 (issue 26): an image attachment's thumbnail (made by the renderer beside the resized
 * image, at most ATTACHMENT_LIMITS.thumbMaxSide px), so a transcript does not load full images;
 * `created_at` indexed for the start-up sweep of attachments no message refers to.
 */
const V18_ATTACHMENT_THUMBS = `
ALTER TABLE attachments ADD COLUMN thumb BLOB;
ALTER TABLE attachments ADD COLUMN thumb_mime TEXT;
CREATE INDEX idx_attachments_created ON attachments(created_at);
`;

/**
 * A checkpoint's changes may be `overwritten`: no longer all in the files after an undo or redo of
 * another turn (issue 37). SQLite cannot change a CHECK, so the table is built again with the same
 * rows; checkpoints are also found by folder (every session's turns in one folder share its files).
 */
const V19_CHECKPOINT_STATES = `
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
/**
 * Version 23 (issue 36): the window a local server said it runs the profile's model with: Ollama's num_ctx,
 * LM Studio's loaded context length, llama.cpp's n_ctx, vLLM's max_model_len, as JSON
 * (ServerWindowSchema), read when the profile is saved.
 */
const V23_SERVER_WINDOW = `ALTER TABLE provider_profiles ADD COLUMN server_window TEXT;`;

/**
 * Version 20 (issue 40): project memory, one per working folder's project (its root's realpath):
 * candidates for the inbox and the facts the user accepted, each with its evidence, the state its
 * last check found, and the correction that superseded it. One row per fact of a project
 * (`fact_key`, protocol's projectFactKey); a rejected row stays so the same candidate is not
 * proposed again.
 */
const V20_PROJECT_MEMORY = `
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

/**
 * Version 22 (issue 34): files a sandboxed command left that make code run later, held for the
 * user until they keep or discard them; the copies live in the data folder (`held/<session>/<id>`).
 */
const V22_HELD_FILES = `
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

/**
 * Version 24 (issue 39): helpers (the delegate tool). A helper is a session of its own, linked to
 * the session whose call started it (`parent_id`: hidden from the list, deleted with it), and a
 * `helpers` row with its task, role, model, status and report.
 */
const V24_HELPERS = `
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

export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    description: 'core schema: sessions, messages, compactions, settings, providers, approvals',
    sql: V1_CORE,
  },
  { version: 2, description: 'CFPM memory tables', sql: V2_MEMORY },
  { version: 3, description: 'provider key storage marker, active-compaction index', sql: V3_KEY_STORAGE },
  { version: 4, description: 'full tool outputs in their own table', sql: V4_MESSAGE_OUTPUTS },
  { version: 5, description: 'session working folder, running tool processes', sql: V5_AGENT_REACH },
  { version: 6, description: 'message branches, full-text search index', sql: V6_BRANCHES_SEARCH },
  { version: 7, description: 'MCP servers', sql: V7_MCP_SERVERS },
  { version: 8, description: 'memory anchored to its branch', sql: V8_MEMORY_BRANCHES },
  {
    version: COMPACT_STORE_VERSION,
    description: 'full outputs compressed, search index over the conversation only',
    sql: V9_COMPACT_STORE,
    run: packExistingOutputs,
  },
  { version: 10, description: 'MCP server folder, environment allow-list, pinned tools', sql: V10_MCP_PINS },
  { version: 11, description: 'sandboxed approval policy, per-session network for commands', sql: V11_SANDBOX },
  { version: 12, description: 'session message counts: the conversation only', sql: '', run: recountConversations },
  { version: 13, description: "a session's own system prompt", sql: V13_SESSION_PROMPT },
  { version: 14, description: 'checkpoints of the working folder', sql: V14_CHECKPOINTS },
  { version: 15, description: 'window learned from the provider', sql: V15_LEARNED_WINDOW },
  { version: 16, description: 'attachments, a model per session', sql: V16_ATTACHMENTS_SESSION_MODEL },
  { version: 17, description: 'tokens of every model call, prices per profile', sql: V17_MODEL_CALLS },
  { version: 18, description: 'attachment thumbnails, attachments by age', sql: V18_ATTACHMENT_THUMBS },
  { version: 19, description: 'checkpoints whose changes were overwritten', sql: V19_CHECKPOINT_STATES },
  { version: 20, description: 'project memory across sessions', sql: V20_PROJECT_MEMORY },
  {
    version: 21,
    description: 'permission rules (per-session approvals become rules)',
    sql: V21_RULES,
    run: migrateApprovalsToRules,
  },
  { version: 22, description: 'files held for the user', sql: V22_HELD_FILES },
  { version: 23, description: 'the window a local server runs the model with', sql: V23_SERVER_WINDOW },
  { version: 24, description: 'helpers: sessions of their own under a parent session', sql: V24_HELPERS },
]);

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function readUserVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the database up to `target` (default: latest), one transaction per migration.
 * Returns the versions applied. The caller has already refused databases newer than the code.
 */
export function migrate(db: Database.Database, target: number = SCHEMA_VERSION): number[] {
  const applied: number[] = [];
  for (const m of MIGRATIONS) {
    if (m.version > target) break;
    if (m.version <= readUserVersion(db)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      m.run?.(db);
      // user_version lives in the header page, written in the same transaction as the schema.
      db.pragma(`user_version = ${m.version}`);
    }).immediate();
    applied.push(m.version);
  }
  return applied;
}

/**
 * Recreates the search index from history when it (or one of its triggers) is missing, e.g. after
 * a tool dropped it: search must never silently cover only part of the history.
 */
export function ensureSearchIndex(db: Database.Database): boolean {
  const version = readUserVersion(db);
  if (version < 6) return false;
  const parts =
    version >= 9
      ? "('messages_fts', 'messages_fts_ai', 'messages_fts_ad', 'messages_searchable')"
      : "('messages_fts', 'messages_fts_ai', 'messages_fts_ad')";
  const have = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM sqlite_master WHERE name IN ${parts}`).get();
  if (have?.n === (version >= 9 ? 4 : 3)) return false;
  db.transaction(() => {
    db.exec(DROP_SEARCH_INDEX);
    db.exec(version >= 9 ? SEARCH_INDEX_SQL : SEARCH_INDEX_V6_SQL);
  }).immediate();
  return true;
}
