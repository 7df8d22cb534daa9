import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RuleDraft } from '@threadline/protocol';
import { MIGRATIONS, migrate } from '../db/migrations';
import { StoreError } from '../types';
import { steppingClock, useTempDir } from './helpers';

const RULES_VERSION = MIGRATIONS.find((m) => m.sql.includes('CREATE TABLE permission_rules'))!.version;

const npmTest: Omit<RuleDraft, 'scope'> = {
  decision: 'allow',
  match: { kind: 'command', tool: 'shell', words: ['npm', 'test'], more: true, sandbox: 'only' },
};

describe('permission rules', () => {
  const tmp = useTempDir();

  it('are stored with their origin, listed in force per session, changed, counted and revoked; they survive a reopen', () => {
    let store = tmp.open({ now: steppingClock(1000) });
    const a = store.sessions.create('a');
    const b = store.sessions.create('b');
    const own = store.rules.add(
      { ...npmTest, scope: { kind: 'session', sessionId: a.id } },
      { kind: 'card', sessionId: a.id, sessionTitle: 'a', toolCallId: 'call-1' },
    );
    const folder = store.rules.add({ ...npmTest, scope: { kind: 'folder', folder: '/work/p' } }, { kind: 'settings' });
    const everywhere = store.rules.add(
      {
        decision: 'deny',
        match: { kind: 'command', tool: 'shell', words: ['git', 'push'], more: true, sandbox: 'also_outside' },
        scope: { kind: 'everywhere' },
        reason: 'Pushes go through review.',
      },
      { kind: 'settings' },
    );
    expect(own).toMatchObject({
      hits: 0,
      lastHitAt: null,
      reason: null,
      origin: { kind: 'card', toolCallId: 'call-1' },
    });
    expect(everywhere.reason).toBe('Pushes go through review.');
    expect(store.rules.forSession(a.id).map((r) => r.id)).toEqual([own.id, folder.id, everywhere.id]);
    expect(store.rules.forSession(b.id).map((r) => r.id)).toEqual([folder.id, everywhere.id]);

    store.rules.hit([own.id, folder.id]);
    store.rules.hit([own.id]);
    // An allow keeps no reason: only a denial's reason reaches the model.
    const edited = store.rules.update(folder.id, {
      ...npmTest,
      decision: 'ask',
      reason: 'x',
      scope: { kind: 'everywhere' },
    });
    expect(edited).toMatchObject({ decision: 'ask', reason: null, scope: { kind: 'everywhere' }, hits: 1 });
    expect(edited.updatedAt).toBeGreaterThan(edited.createdAt);
    store.close();

    store = tmp.open();
    const again = store.rules.get(own.id)!;
    expect(again).toMatchObject({ hits: 2, match: npmTest.match, scope: { kind: 'session', sessionId: a.id } });
    expect(again.lastHitAt).toBeGreaterThan(again.createdAt);
    expect(store.rules.remove(everywhere.id)).toBe(true);
    expect(store.rules.remove(everywhere.id)).toBe(false);
    // A session's rules go with it.
    store.sessions.delete(a.id);
    expect(store.rules.list().map((r) => r.id)).toEqual([folder.id]);
  });

  it('refuses what the protocol refuses: a rule word that is not plain, a relative folder, a missing session', () => {
    const store = tmp.open();
    const bad = (draft: unknown) => () => store.rules.add(draft as RuleDraft, { kind: 'settings' });
    const scope = { kind: 'everywhere' } as const;
    expect(bad({ ...npmTest, scope, match: { ...npmTest.match, words: ['git status'] } })).toThrow(StoreError);
    expect(bad({ ...npmTest, scope, match: { ...npmTest.match, words: ['rm;'] } })).toThrow(StoreError);
    expect(bad({ ...npmTest, scope, match: { ...npmTest.match, words: ['git\u200bstatus'] } })).toThrow(StoreError);
    expect(bad({ ...npmTest, scope: { kind: 'folder', folder: 'work/p' } })).toThrow(StoreError);
    expect(bad({ ...npmTest, scope: { kind: 'session', sessionId: 'nope' } })).toThrow(/does not exist/);
    expect(() => store.rules.update('nope', { ...npmTest, scope })).toThrow(/does not exist/);
    expect(store.rules.list()).toEqual([]);
  });

  it('turns the per-session "always" of an older database into session rules that never reach past the card', () => {
    const file = join(tmp.dir(), 'old.db');
    const db = new Database(file);
    db.pragma('foreign_keys = ON');
    migrate(db, RULES_VERSION - 1);
    db.prepare("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('s1', 't', 1, 1)").run();
    db.prepare(
      `INSERT INTO tool_approvals VALUES ('s1', 'shell', 'sandboxed', 5), ('s1', 'edit_file', 'auto', 6),
       ('s1', 'read_file', 'deny', 7), ('s1', 'files__read', 'auto', 8)`,
    ).run();
    db.close();
    const store = tmp.open({ file });
    const byTool = Object.fromEntries(
      store.rules.forSession('s1').map((r) => [r.match.kind === 'mcp' ? r.match.server : r.match.tool, r]),
    );
    expect(byTool.shell).toMatchObject({
      decision: 'allow',
      match: { kind: 'command', words: [], more: true, sandbox: 'only' },
      scope: { kind: 'session', sessionId: 's1' },
      origin: { kind: 'migrated', sessionId: 's1' },
      createdAt: 5,
    });
    // Issue 34 item 6: an "always" on a file tool covered the working folder, never past it.
    expect(byTool.edit_file).toMatchObject({ decision: 'allow', match: { kind: 'path', scope: { kind: 'inside' } } });
    expect(byTool.read_file).toMatchObject({ decision: 'deny', match: { kind: 'path', scope: { kind: 'any' } } });
    expect(byTool.files__read).toMatchObject({ decision: 'allow', match: { kind: 'tool' } });
    const tables = new Database(file, { readonly: true });
    expect(tables.prepare("SELECT name FROM sqlite_master WHERE name = 'tool_approvals'").all()).toEqual([]);
    tables.close();
  });
});
