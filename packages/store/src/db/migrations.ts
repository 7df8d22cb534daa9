// Schema migrations by `PRAGMA user_version`. Each migration runs in one transaction together with
// the version bump, so a crash mid-migration leaves the previous version intact. Never edit a
// migration that has shipped: add a new one.
// The SQL of each version (and the work SQL cannot do) is in versions/vNN.ts; this file lists
// them in order and runs them.
import type Database from 'better-sqlite3';
import { DROP_SEARCH_INDEX, SEARCH_INDEX_SQL, SEARCH_INDEX_V6_SQL } from './searchIndex';
import { V1_CORE } from './versions/v01';
import { V2_MEMORY } from './versions/v02';
import { V3_KEY_STORAGE } from './versions/v03';
import { V4_MESSAGE_OUTPUTS } from './versions/v04';
import { V5_AGENT_REACH } from './versions/v05';
import { V6_BRANCHES_SEARCH } from './versions/v06';
import { V7_MCP_SERVERS } from './versions/v07';
import { V8_MEMORY_BRANCHES } from './versions/v08';
import { V9_COMPACT_STORE, packExistingOutputs } from './versions/v09';
import { V10_MCP_PINS } from './versions/v10';
import { V11_SANDBOX } from './versions/v11';
import { recountConversations } from './versions/v12';
import { V13_SESSION_PROMPT } from './versions/v13';
import { V14_CHECKPOINTS } from './versions/v14';
import { V15_LEARNED_WINDOW } from './versions/v15';
import { V16_ATTACHMENTS_SESSION_MODEL } from './versions/v16';
import { V17_MODEL_CALLS } from './versions/v17';
import { V18_ATTACHMENT_THUMBS } from './versions/v18';
import { V19_CHECKPOINT_STATES } from './versions/v19';
import { V20_PROJECT_MEMORY } from './versions/v20';
import { migrateApprovalsToRules, V21_RULES } from './versions/v21';
import { V22_HELD_FILES } from './versions/v22';
import { V23_SERVER_WINDOW } from './versions/v23';
import { V24_HELPERS } from './versions/v24';

export interface Migration {
  version: number;
  description: string;
  sql: string;
  /** Work SQL cannot do (compressing rows), run after `sql` in the same transaction. */
  run?: (db: Database.Database) => void;
}

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
