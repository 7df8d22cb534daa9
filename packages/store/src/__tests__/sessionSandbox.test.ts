import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from '../db/migrations';
import { StoreError } from '../types';
import { useTempDir } from './helpers';

/** The migration that brought the sandbox: found by its table, not by its number (the lead renumbers). */
const SANDBOX_VERSION = MIGRATIONS.find((m) => m.sql.includes('CREATE TABLE session_sandbox'))!.version;
const RULES_VERSION = MIGRATIONS.find((m) => m.sql.includes('CREATE TABLE permission_rules'))!.version;

describe('session sandbox settings and the sandboxed policy', () => {
  const tmp = useTempDir();

  it('keeps the network switch per session, off by default, across a reopen, gone with its session', () => {
    let store = tmp.open();
    const a = store.sessions.create('a');
    const b = store.sessions.create('b');
    expect(store.sessionSandbox.network(a.id)).toBe(false);
    store.sessionSandbox.setNetwork(a.id, true);
    store.close();
    store = tmp.open();
    expect(store.sessionSandbox.network(a.id)).toBe(true);
    expect(store.sessionSandbox.network(b.id)).toBe(false);
    store.sessionSandbox.setNetwork(a.id, false);
    expect(store.sessionSandbox.network(a.id)).toBe(false);
    expect(() => store.sessionSandbox.setNetwork('nope', true)).toThrow(StoreError);
    store.sessionSandbox.setNetwork(b.id, true);
    store.sessions.delete(b.id);
    expect(store.sessionSandbox.network(b.id)).toBe(false);
  });

  it('keeps the approval rows of an older database through the rebuild of their table', () => {
    const file = join(tmp.dir(), 'old.db');
    const db = new Database(file);
    db.pragma('foreign_keys = ON');
    migrate(db, SANDBOX_VERSION - 1);
    db.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('s1', 't', 1, 1)").run();
    db.prepare("INSERT INTO tool_approvals VALUES ('s1', 'shell', 'auto', 5), ('s1', 'write_file', 'deny', 6)").run();
    expect(() => db.prepare("INSERT INTO tool_approvals VALUES ('s1', 'x', 'sandboxed', 7)").run()).toThrow(/CHECK/);
    // The rows outlive the rebuild of their table (version 11), until they become rules (version 21).
    migrate(db, RULES_VERSION - 1);
    expect(db.prepare('SELECT tool_name, policy FROM tool_approvals ORDER BY tool_name').all()).toEqual([
      { tool_name: 'shell', policy: 'auto' },
      { tool_name: 'write_file', policy: 'deny' },
    ]);
    db.close();
  });
});
