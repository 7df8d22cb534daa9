import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, MIGRATIONS, readUserVersion, SCHEMA_VERSION } from '../db/migrations';
import { openStore } from '../openStore';
import { openDatabase } from '../db/connection';
import { StoreError } from '../types';
import { fakeEncryptor, useTempDir } from './helpers';

const tmp = useTempDir();
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

/** Builds a database at exactly `version` with rows every version up to it can hold. */
function databaseAt(version: number): string {
  const file = join(tmp.dir(), `v${version}.db`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  migrate(db, version);
  db.prepare(
    "INSERT INTO sessions (id, title, created_at, updated_at, message_count) VALUES ('s1', 'old', 1, 2, 1)",
  ).run();
  db.prepare(
    "INSERT INTO messages (id, session_id, seq, created_at, role, content, kind, visible_user, visible_agent) VALUES ('m1', 's1', 1, 1, 'user', 'hello from v' || ?, 'normal', 1, 1)",
  ).run(String(version));
  // A tool result with its full output, wherever this version keeps it.
  db.prepare(
    "INSERT INTO messages (id, session_id, seq, created_at, role, content, tool_call_id, kind, visible_user, visible_agent) VALUES ('m2', 's1', 2, 1, 'tool', 'cut…', 'c1', 'normal', 0, 1)",
  ).run();
  if (version < 4) db.prepare("UPDATE messages SET full_output = 'the whole output' WHERE id = 'm2'").run();
  else db.prepare("INSERT INTO message_outputs (message_id, full_output) VALUES ('m2', 'the whole output')").run();
  // From v6 on, messages form a branch: m2 follows m1, and the session shows the branch ending in m2.
  if (version >= 6) {
    db.prepare("UPDATE messages SET parent_id = 'm1' WHERE id = 'm2'").run();
    db.prepare("UPDATE sessions SET active_leaf_id = 'm2' WHERE id = 's1'").run();
  }
  db.prepare(
    "INSERT INTO provider_profiles (id, preset, name, base_url, model, context_window, api_key_cipher, active, created_at, updated_at) VALUES ('p1', 'openai', 'OpenAI', 'https://api.openai.com/v1', 'gpt-4.1', 1000, ?, 1, 1, 1)",
  ).run(fakeEncryptor().encrypt('sk-old'));
  if (version >= 3) db.prepare("UPDATE provider_profiles SET key_storage = 'encrypted'").run();
  if (version >= 2) {
    db.prepare(
      "INSERT INTO memory_facts (id, session_id, category, content, status, pinned, source, confidence, evidence_count, last_validated_at, validation_command, created_at, updated_at) VALUES ('f1', 's1', 'goal', 'ship it', 'active', 0, 'user', 1, 1, NULL, NULL, 1, 1)",
    ).run();
  }
  if (version >= 14) {
    db.prepare(
      `INSERT INTO checkpoints (id, session_id, anchor_id, user_message_id, folder, before_commit, after_commit, files_changed, files, skipped, state, created_at, updated_at) VALUES ('c1', 's1', 'm2', 'm1', '/w', 'b', 'a', 1, '[{"path":"a.txt","status":"added","added":1,"removed":0}]', '{"tooLarge":[],"overBudget":0,"nestedRepos":[],"maxFileBytes":1,"maxTotalBytes":1}', 'undone', 1, 2)`,
    ).run();
  }
  db.close();
  return file;
}

describe('migrations', () => {
  it('creates the latest schema in an empty folder, with WAL, synchronous=FULL and foreign keys', () => {
    const store = tmp.open();
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    store.close();
    const db = new Database(store.file);
    expect(readUserVersion(db)).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(
      [
        'attachments',
        'checkpoints',
        'held_files',
        'compactions',
        'message_outputs',
        'memory_candidates',
        'memory_edit_log',
        'memory_fact_hides',
        'memory_facts',
        'memory_snapshots',
        'messages',
        'messages_fts',
        'messages_fts_config',
        'messages_fts_data',
        'messages_fts_idx',
        'provider_profiles',
        'sessions',
        'settings',
        'permission_rules',
        'session_sandbox',
        'tool_processes',
        'mcp_servers',
        'mcp_tool_pins',
        'model_calls',
        'model_prices',
        'project_facts',
      ].sort(),
    );
    db.close();
  });

  it('sets WAL, synchronous=FULL, foreign keys and a busy timeout on the connection', () => {
    const { db } = openDatabase({ file: join(tmp.dir(), 'p.db'), onCorrupt: 'throw', now: Date.now });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(2); // 2 = FULL
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('has versions 1..N in order, each applied once', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  for (const m of MIGRATIONS.slice(0, -1)) {
    it(`migrates a v${m.version} database to v${SCHEMA_VERSION} keeping its data`, () => {
      const file = databaseAt(m.version);
      const store = openStore({ file, env: {}, encryptor: fakeEncryptor() });
      try {
        expect(store.schemaVersion).toBe(SCHEMA_VERSION);
        expect(store.sessions.get('s1')).toMatchObject({ title: 'old', messageCount: 1 });
        expect(store.messages.list('s1').map((x) => x.content)).toEqual([`hello from v${m.version}`, 'cut…']);
        expect(store.messages.get('m2')!.fullOutput).toBe('the whole output');
        expect(store.messages.get('m1')!.fullOutput).toBeNull();
        // Keys stored before v3 are marked encrypted by it, so they still decrypt.
        expect(store.providers.keyStorage('p1')).toBe('encrypted');
        expect(store.providers.secret('p1')).toBe('sk-old');
        if (m.version >= 2) expect(store.memory.facts('s1').map((f) => f.content)).toEqual(['ship it']);
        if (m.version >= 14)
          expect(store.checkpoints.listFolder('/w')).toMatchObject([{ id: 'c1', state: 'undone', filesChanged: 1 }]);
        // The new schema works on the migrated file.
        const [added] = store.messages.append('s1', [{ role: 'assistant', content: 'after upgrade' }]);
        expect(added!.seq).toBe(3);
        store.memory.upsertFact('s1', { category: 'note', content: 'works' });
      } finally {
        store.close();
      }
    });
  }

  it('rolls a failing migration back whole, leaving the previous version', () => {
    const file = databaseAt(1);
    const db = new Database(file);
    // Make v2 fail half-way: its first table already exists under another shape.
    db.exec('CREATE TABLE memory_snapshots (x INTEGER)');
    expect(() => migrate(db)).toThrow();
    expect(readUserVersion(db)).toBe(1);
    // memory_facts (created before the failing statement) was rolled back with it.
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'memory_facts'").pluck().get()).toBe(0);
    db.close();
  });

  it('refuses a database from a newer version and leaves it byte-identical', () => {
    const file = databaseAt(SCHEMA_VERSION);
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    const before = sha(file);
    let error: unknown;
    try {
      openStore({ file, env: {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('newer_schema');
    expect((error as StoreError).message).toContain(`schema version ${SCHEMA_VERSION + 5}`);
    expect(sha(file)).toBe(before);
    expect(existsSync(file + '-wal')).toBe(false);
  });
});
