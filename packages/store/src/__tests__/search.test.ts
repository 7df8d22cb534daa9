import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEARCH_MARK } from '@threadline/protocol';
import { migrate, readUserVersion, SCHEMA_VERSION } from '../db/migrations';
import { openStore } from '../openStore';
import { useTempDir } from './helpers';

const tmp = useTempDir();
const marked = (s: string) => s.replaceAll(SEARCH_MARK.start, '[').replaceAll(SEARCH_MARK.end, ']');

/** A real file at schema version 4 (before branches and search), with two sessions of history. */
function version4Database(): string {
  const file = join(tmp.dir(), 'v4.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  migrate(db, 4);
  const session = db.prepare(
    'INSERT INTO sessions (id, title, created_at, updated_at, message_count) VALUES (?, ?, 1, 2, 3)',
  );
  session.run('s1', 'first');
  session.run('s2', 'second');
  const msg = db.prepare(
    'INSERT INTO messages (id, session_id, seq, created_at, role, content, kind, visible_user, visible_agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  msg.run('a1', 's1', 1, 10, 'user', 'please run seq 5 for me', 'normal', 1, 1);
  msg.run('a2', 's1', 2, 11, 'assistant', 'Done: 1 2 3 4 5', 'normal', 1, 1);
  msg.run('a3', 's1', 3, 12, 'user', '[THREADLINE_ERROR_V1] seq 5 failed', 'error_notice', 1, 0);
  msg.run('b1', 's2', 1, 20, 'user', '请帮我检查缓存命中率', 'normal', 1, 1);
  msg.run('b2', 's2', 2, 21, 'assistant', '缓存命中率是百分之九十。', 'normal', 1, 1);
  msg.run('b3', 's2', 3, 22, 'user', 'summary mentions seq 5 too', 'summary', 0, 1);
  db.prepare(
    "INSERT INTO compactions (id, session_id, strategy, trigger, steps, hidden_ids, inserted_ids, tokens_before, tokens_after, after_seq, created_at) VALUES ('c1', 's2', 'summarize', 'manual', '[]', '[\"b1\"]', '[\"b3\"]', 10, 2, 2, 30)",
  ).run();
  db.close();
  return file;
}

describe('full-text search (migration 6)', () => {
  it('migrates a version-4 file: history indexed, one branch per session, compactions anchored', () => {
    const file = version4Database();
    const store = openStore({ file, env: {} });
    try {
      expect(store.schemaVersion).toBe(SCHEMA_VERSION);
      const hits = store.messages.search('seq 5');
      // The request only: notices and agent-only summaries are not the conversation.
      expect(hits.map((h) => [h.sessionId, h.messageId, h.sessionTitle])).toEqual([['s1', 'a1', 'first']]);
      expect(marked(hits[0]!.snippet)).toBe('please run [seq 5] for me');
      // Chinese has no spaces between words: the trigram index still finds a word inside a sentence.
      expect(store.messages.search('命中率').map((h) => h.messageId)).toEqual(['b2', 'b1']);
      expect(marked(store.messages.search('命中率')[0]!.snippet)).toBe('缓存[命中率]是百分之九十。');
      // Two characters are below the trigram size: found by a scan, marked the same way.
      expect(store.messages.search('缓存').map((h) => marked(h.snippet))).toEqual([
        '[缓存]命中率是百分之九十。',
        '请帮我检查[缓存]命中率',
      ]);
      // Case-insensitive, quotes are text, not query syntax.
      expect(store.messages.search('SEQ 5').map((h) => h.messageId)).toEqual(['a1']);
      expect(store.messages.search('"seq')).toEqual([]);
      // Each session's history became one branch, in order, with its leaf active.
      expect(store.messages.list('s1').map((m) => m.id)).toEqual(['a1', 'a2', 'a3']);
      expect(store.messages.get('a2')!.parentId).toBe('a1');
      expect(store.messages.leaf('s2')).toBe('b3');
      expect(store.compactions.active('s2').map((c) => c.id)).toEqual(['c1']);
      // New writes are indexed in their own transaction.
      store.messages.append('s2', [{ role: 'assistant', content: 'a zebra appears' }]);
      expect(store.messages.search('zebra').map((h) => h.sessionId)).toEqual(['s2']);
    } finally {
      store.close();
    }
    const db = new Database(file);
    expect(readUserVersion(db)).toBe(SCHEMA_VERSION);
    // FTS5's own check that the index matches the messages it points at.
    expect(() => db.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")).not.toThrow();
    db.close();
  });

  it('a failed write leaves nothing in the index; a deleted session leaves nothing either', () => {
    const store = tmp.open();
    const s = store.sessions.create('x');
    expect(() =>
      store.messages.append(s.id, [
        { id: 'dup', role: 'user', content: 'okapi first' },
        { id: 'dup', role: 'assistant', content: 'okapi second' },
      ]),
    ).toThrow();
    expect(store.messages.search('okapi')).toEqual([]);
    store.messages.append(s.id, [{ role: 'user', content: 'okapi for real' }]);
    expect(store.messages.search('okapi')).toHaveLength(1);
    store.sessions.delete(s.id);
    expect(store.messages.search('okapi')).toEqual([]);
  });

  it('rebuilds a missing index from history when the store opens', () => {
    const first = tmp.open();
    const s = first.sessions.create('kept');
    first.messages.append(s.id, [{ role: 'user', content: 'the walrus question' }]);
    const file = first.file;
    first.close();
    const db = new Database(file);
    db.exec('DROP TRIGGER messages_fts_ai; DROP TABLE messages_fts;');
    db.close();
    const again = openStore({ file, env: {} });
    try {
      expect(again.messages.search('walrus').map((h) => h.sessionTitle)).toEqual(['kept']);
      again.messages.append(s.id, [{ role: 'assistant', content: 'walrus answer' }]);
      expect(again.messages.search('walrus')).toHaveLength(2);
    } finally {
      again.close();
    }
  });
});
