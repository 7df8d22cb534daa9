import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SEARCH_MARK } from '@threadline/protocol';
import { migrate, readUserVersion, SCHEMA_VERSION } from '../db/migrations';
import { openStore } from '../openStore';
import { useTempDir } from './helpers';

const tmp = useTempDir();
const marked = (s: string) => s.replaceAll(SEARCH_MARK.start, '[').replaceAll(SEARCH_MARK.end, ']');
const bigOutput = Array.from({ length: 400 }, (_, i) => `PASS src/module${i % 7}.test.ts (${i} ms)`).join('\n');

function rawOutputs(file: string): { id: string; type: string; bytes: Buffer | string }[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[], { id: string; type: string; bytes: Buffer | string }>(
        'SELECT message_id AS id, typeof(full_output) AS type, full_output AS bytes FROM message_outputs ORDER BY message_id',
      )
      .all();
  } finally {
    db.close();
  }
}

/** Rowids the search index itself holds for a trigram (MATCH reads the index, not the messages). */
function indexedRowids(file: string, trigram: string): number[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[string], number>('SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?')
      .pluck()
      .all(trigram);
  } finally {
    db.close();
  }
}

/** A real file at schema version 8 (outputs as text, the version-6 index over every message). */
function version8Database(): string {
  const file = join(tmp.dir(), 'v8.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  migrate(db, 8);
  db.prepare(
    "INSERT INTO sessions (id, title, created_at, updated_at, message_count, active_leaf_id) VALUES ('s1', 'old', 1, 2, 3, 'm4')",
  ).run();
  const msg = db.prepare(
    'INSERT INTO messages (id, session_id, seq, created_at, role, content, tool_call_id, kind, visible_user, visible_agent, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  msg.run('m1', 's1', 1, 10, 'user', 'why does the snake_case test fail?', null, 'normal', 1, 1, null);
  msg.run('m2', 's1', 2, 11, 'tool', 'PASS src/module0… (cut)', 'c1', 'normal', 1, 1, 'm1');
  msg.run('m3', 's1', 3, 12, 'assistant', '测试缓存命中率下降了', null, 'normal', 1, 1, 'm2');
  msg.run('m4', 's1', 4, 13, 'tool', 'xylophone output', 'c2', 'normal', 1, 1, 'm3');
  db.prepare('INSERT INTO message_outputs (message_id, full_output) VALUES (?, ?)').run('m2', bigOutput);
  db.prepare('INSERT INTO message_outputs (message_id, full_output) VALUES (?, ?)').run('m4', 'xylophone full');
  db.close();
  return file;
}

describe('full outputs compressed on disk (migration 9)', () => {
  it('stores a full output as a compressed BLOB and gives the text back only when asked', () => {
    const store = tmp.open();
    const s = store.sessions.create('c');
    const [, tool] = store.messages.append(s.id, [
      { role: 'user', content: 'run the tests' },
      { role: 'tool', content: 'PASS… (cut)', tool_call_id: 'c1', fullOutput: bigOutput },
    ]);
    const [row] = rawOutputs(store.file);
    expect(row!.type).toBe('blob');
    const bytes = row!.bytes as Buffer;
    expect(bytes.length).toBeLessThan(Buffer.byteLength(bigOutput) / 5);
    expect(bytes.includes('PASS src/module')).toBe(false);
    expect(brotliDecompressSync(bytes).toString('utf8')).toBe(bigOutput);
    // Read on request: one message, or a whole history when the caller asks for outputs.
    expect(store.messages.get(tool!.id)!.fullOutput).toBe(bigOutput);
    expect(store.messages.list(s.id).map((m) => m.fullOutput)).toEqual([null, bigOutput]);
    expect(store.messages.list(s.id, { fullOutput: false }).every((m) => !('fullOutput' in m))).toBe(true);
  });

  it('converts the outputs of a version-8 file and indexes only the conversation', () => {
    const file = version8Database();
    // Before: the version-6 index holds the tool result's text too.
    expect(indexedRowids(file, 'xyl')).toHaveLength(1);
    const store = openStore({ file, env: {} });
    try {
      expect(store.schemaVersion).toBe(SCHEMA_VERSION);
      expect(store.messages.get('m2')!.fullOutput).toBe(bigOutput);
      expect(store.messages.get('m4')!.fullOutput).toBe('xylophone full');
      expect(store.messages.get('m1')!.fullOutput).toBeNull();
      // Substrings (case-insensitive), Chinese inside a sentence, `_` as a character, not a wildcard.
      expect(store.messages.search('SNAKE_CASE').map((h) => [h.messageId, marked(h.snippet)])).toEqual([
        ['m1', 'why does the [snake_case] test fail?'],
      ]);
      expect(store.messages.search('snake%case')).toEqual([]);
      expect(store.messages.search('ake_ca').map((h) => h.messageId)).toEqual(['m1']);
      expect(store.messages.search('缓存命中').map((h) => marked(h.snippet))).toEqual(['测试[缓存命中]率下降了']);
      // Tool results are not the conversation: not found, and not in the index at all.
      expect(store.messages.search('xylophone')).toEqual([]);
      // New writes follow the same rules.
      const [reply, tool] = store.messages.append('s1', [
        { role: 'assistant', content: 'the quokka is fixed' },
        { role: 'tool', content: 'quokka log', tool_call_id: 'c3', fullOutput: 'quokka full log' },
      ]);
      expect(store.messages.search('quokka').map((h) => h.messageId)).toEqual([reply!.id]);
      expect(store.messages.get(tool!.id)!.fullOutput).toBe('quokka full log');
    } finally {
      store.close();
    }
    expect(rawOutputs(file).map((r) => r.type)).toEqual(['blob', 'blob', 'blob']);
    expect(indexedRowids(file, 'xyl')).toEqual([]);
    expect(indexedRowids(file, 'quo')).toHaveLength(1);
    const db = new Database(file);
    expect(readUserVersion(db)).toBe(SCHEMA_VERSION);
    expect(() => db.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")).not.toThrow();
    db.close();
  });

  it('recounts each session as the conversation (requests and answers with text) when it upgrades a file', () => {
    const file = version8Database();
    // Stored under the old rule: every user-visible message of the branch (4, here 3 by hand).
    const store = openStore({ file, env: {} });
    try {
      // m1 (the request) and m3 (the answer): the two tool results are not counted.
      expect(store.sessions.get('s1')!.messageCount).toBe(2);
    } finally {
      store.close();
    }
  });

  it('gives the space back once when it upgrades a file, with search intact', () => {
    const file = version8Database();
    const db = new Database(file);
    const add = db.prepare('INSERT INTO message_outputs (message_id, full_output) VALUES (?, ?)');
    const msg = db.prepare(
      "INSERT INTO messages (id, session_id, seq, created_at, role, content, tool_call_id, kind, visible_user, visible_agent, parent_id) VALUES (?, 's1', ?, 20, 'tool', 'cut', 'c', 'normal', 1, 1, NULL)",
    );
    for (let i = 0; i < 200; i++) {
      msg.run(`t${i}`, 100 + i);
      add.run(`t${i}`, `${bigOutput}\nrun ${i}`);
    }
    db.close(); // checkpoints the WAL into the file
    const before = statSync(file).size;
    openStore({ file, env: {} }).close();
    const after = statSync(file).size;
    expect(after).toBeLessThan(before / 4);
    const again = openStore({ file, env: {} });
    try {
      expect(again.messages.search('snake_case').map((h) => h.messageId)).toEqual(['m1']);
      expect(again.messages.get('t199')!.fullOutput).toBe(`${bigOutput}\nrun 199`);
    } finally {
      again.close();
    }
    const check = new Database(file);
    expect(() =>
      check.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)"),
    ).not.toThrow();
    check.close();
  });

  it('converts in one transaction: a failure leaves version 8 and its outputs as they were', () => {
    const file = version8Database();
    const db = new Database(file);
    // A table where the view goes: the migration fails after it dropped the old index.
    db.exec('CREATE TABLE messages_searchable (x INTEGER)');
    expect(() => migrate(db)).toThrow();
    expect(readUserVersion(db)).toBe(8);
    expect(db.prepare("SELECT typeof(full_output) FROM message_outputs WHERE message_id = 'm2'").pluck().get()).toBe(
      'text',
    );
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'messages_fts_ai'").pluck().get()).toBe(1);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'message_outputs_packed'").pluck().get()).toBe(
      0,
    );
    db.close();
  });

  it('rebuilds a missing version-9 index over the conversation only', () => {
    const first = tmp.open();
    const s = first.sessions.create('kept');
    first.messages.append(s.id, [
      { role: 'user', content: 'the walrus question' },
      { role: 'tool', content: 'walrus tool text', tool_call_id: 'c1' },
    ]);
    const file = first.file;
    first.close();
    const db = new Database(file);
    db.exec('DROP VIEW messages_searchable; DROP TABLE messages_fts;');
    db.close();
    const again = openStore({ file, env: {} });
    try {
      expect(again.messages.search('walrus').map((h) => h.role)).toEqual(['user']);
    } finally {
      again.close();
    }
    expect(indexedRowids(file, 'wal')).toHaveLength(1);
  });
});
