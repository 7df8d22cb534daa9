import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../types';
import { fakeEncryptor, steppingClock, useTempDir } from './helpers';

const tmp = useTempDir();

describe('sessions', () => {
  it('creates, renames and lists sessions most recently updated first', () => {
    const store = tmp.open({ now: steppingClock() });
    const a = store.sessions.create('first');
    const b = store.sessions.create();
    expect(b.title).toBe('');
    expect(store.sessions.list().map((s) => s.id)).toEqual([b.id, a.id]);
    store.messages.append(a.id, [{ role: 'user', content: 'hi' }]);
    expect(store.sessions.list().map((s) => s.id)).toEqual([a.id, b.id]);
    const renamed = store.sessions.rename(b.id, '  second  ');
    expect(renamed.title).toBe('second');
    expect(store.sessions.list()[0]!.id).toBe(b.id);
    expect(() => store.sessions.rename(b.id, '   ')).toThrow(StoreError);
    expect(() => store.sessions.rename('nope', 'x')).toThrow(/does not exist/);
    expect(store.sessions.get('nope')).toBeNull();
  });

  it("keeps a session's own system prompt across a reopen; blank clears it", () => {
    const store = tmp.open();
    const a = store.sessions.create('a');
    const b = store.sessions.create('b');
    expect(store.turns.rows(a.id).systemPrompt).toBeNull();
    store.sessions.setSystemPrompt(a.id, 'Review SQL only.');
    store.close();
    const again = tmp.open();
    expect(again.turns.rows(a.id).systemPrompt).toBe('Review SQL only.');
    expect(again.turns.rows(b.id).systemPrompt).toBeNull();
    again.sessions.setSystemPrompt(a.id, '   ');
    expect(again.turns.rows(a.id).systemPrompt).toBeNull();
    expect(() => again.sessions.setSystemPrompt('nope', 'x')).toThrow(/does not exist/);
    expect(() => again.sessions.setSystemPrompt(a.id, 'x'.repeat(20_001))).toThrow(StoreError);
  });

  it('deleting a session deletes every row that belongs to it, and nothing else', () => {
    const store = tmp.open({ encryptor: fakeEncryptor() });
    const keep = store.sessions.create('keep');
    const gone = store.sessions.create('gone');
    for (const s of [keep, gone]) {
      const [m] = store.messages.append(s.id, [{ role: 'tool', content: 'x', tool_call_id: 'c', fullOutput: 'full' }]);
      store.compactions.apply(
        s.id,
        {
          strategy: 'cfpm_memory_v1',
          trigger: 'manual',
          steps: [],
          hiddenIds: [m!.id],
          tokensBefore: 2,
          tokensAfter: 1,
        },
        [{ role: 'user', content: 'summary', kind: 'summary' }],
      );
      store.memory.upsertFact(s.id, { category: 'note', content: 'a note' });
      store.memory.refresh(s.id, {
        facts: [],
        candidates: [
          { category: 'artifact', content: 'x', source: 'cfpm_auto', decision: 'rejected', reason: 'too_short' },
        ],
        snapshot: { content: 'snap', factCount: 0 },
      });
      store.rules.add(
        { decision: 'allow', match: { kind: 'tool', tool: 'x' }, scope: { kind: 'session', sessionId: s.id } },
        { kind: 'settings' },
      );
    }
    store.sessions.delete(gone.id);
    expect(() => store.sessions.delete(gone.id)).toThrow(/does not exist/);
    store.close();

    const db = new Database(store.file, { readonly: true });
    for (const table of [
      'messages',
      'compactions',
      'memory_facts',
      'memory_candidates',
      'memory_snapshots',
      'memory_edit_log',
      'permission_rules',
    ]) {
      const bySession = db.prepare(`SELECT session_id AS s, count(*) AS n FROM ${table} GROUP BY session_id`).all();
      expect(bySession, table).toEqual([{ s: keep.id, n: expect.any(Number) }]);
    }
    const outputs = db
      .prepare('SELECT m.session_id AS s FROM message_outputs o JOIN messages m ON m.id = o.message_id')
      .all();
    expect(db.prepare('SELECT count(*) FROM message_outputs').pluck().get()).toBe(1);
    expect(outputs).toEqual([{ s: keep.id }]);
    db.close();
  });
});
