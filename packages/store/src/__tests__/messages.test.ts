import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../types';
import { steppingClock, useTempDir } from './helpers';

const tmp = useTempDir();

const turn = [
  { role: 'user' as const, content: 'list the files' },
  {
    role: 'assistant' as const,
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function' as const, function: { name: 'shell', arguments: '{"command":"ls"}' } },
    ],
  },
  {
    role: 'tool' as const,
    content: 'a.txt\n…truncated…',
    tool_call_id: 'call_1',
    name: 'shell',
    fullOutput: 'a.txt\nb.txt\n'.repeat(1000),
    meta: { durationMs: 12 },
  },
  { role: 'assistant' as const, content: 'There are two files.' },
];

describe('messages', () => {
  it('appends a turn with contiguous seqs, ids and timestamps, and reads it back after reopening', () => {
    const store = tmp.open({ now: steppingClock() });
    const s = store.sessions.create('t');
    const stored = store.messages.append(s.id, turn);
    expect(stored.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(new Set(stored.map((m) => m.id)).size).toBe(4);
    const more = store.messages.append(s.id, [{ role: 'user', content: 'thanks' }]);
    expect(more[0]!.seq).toBe(5);
    store.close();

    const again = tmp.open();
    const listed = again.messages.list(s.id);
    expect(listed).toEqual([...stored, ...more]);
    expect(listed[1]!.tool_calls?.[0]?.function.name).toBe('shell');
    expect(listed[2]).toMatchObject({
      tool_call_id: 'call_1',
      name: 'shell',
      meta: { durationMs: 12 },
      kind: 'normal',
      visibility: { user: true, agent: true },
    });
    expect(listed[2]!.fullOutput).toHaveLength('a.txt\nb.txt\n'.length * 1000);
    expect(again.messages.count(s.id)).toBe(5);
    expect(again.messages.lastSeq(s.id)).toBe(5);
    // The list counts the conversation: 'list the files', the answer, 'thanks' (not the call or its result).
    expect(again.sessions.get(s.id)!.messageCount).toBe(3);
  });

  it('keeps caller ids, kinds and visibility; counts only the conversation in the session', () => {
    const store = tmp.open();
    const s = store.sessions.create();
    const [notice, memory] = store.messages.append(s.id, [
      {
        id: 'notice-1',
        role: 'assistant',
        content: '[CFPM_RUNTIME_V1] {}',
        kind: 'runtime_notice',
        visibility: { user: true, agent: false },
      },
      {
        role: 'system',
        content: '[CFPM_RUNTIME_MEMORY_V1]',
        kind: 'memory_snapshot',
        visibility: { user: false, agent: true },
      },
    ]);
    expect(notice).toMatchObject({ id: 'notice-1', kind: 'runtime_notice', visibility: { user: true, agent: false } });
    expect(store.messages.get(memory!.id)).toMatchObject({
      kind: 'memory_snapshot',
      visibility: { user: false, agent: true },
    });
    // A notice is shown to the user, but it is not part of the conversation the list counts.
    expect(store.sessions.get(s.id)!.messageCount).toBe(0);
  });

  it('writes all messages of an append or none', () => {
    const store = tmp.open();
    const s = store.sessions.create();
    store.messages.append(s.id, [{ role: 'user', content: 'first' }]);
    // The third message duplicates an id: the whole append must roll back.
    expect(() =>
      store.messages.append(s.id, [
        { id: 'dup', role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { id: 'dup', role: 'assistant', content: 'c' },
      ]),
    ).toThrow();
    expect(store.messages.list(s.id).map((m) => m.content)).toEqual(['first']);
    expect(store.sessions.get(s.id)!.messageCount).toBe(1);
  });

  it('rejects invalid messages and unknown sessions with a clear error', () => {
    const store = tmp.open();
    const s = store.sessions.create();
    const bad = () => store.messages.append(s.id, [{ role: 'robot' as 'user', content: 'x' }]);
    expect(bad).toThrow(StoreError);
    expect(bad).toThrow(/Invalid messages: 0\.role/);
    expect(() => store.messages.append('nope', [{ role: 'user', content: 'x' }])).toThrow(
      /Session nope does not exist/,
    );
    expect(store.messages.list(s.id)).toEqual([]);
  });

  it('lists without full outputs or after a seq when asked', () => {
    const store = tmp.open();
    const s = store.sessions.create();
    store.messages.append(s.id, turn);
    const light = store.messages.list(s.id, { fullOutput: false });
    expect(light[2]!.fullOutput).toBeUndefined();
    expect(store.messages.list(s.id)[2]!.fullOutput).toBeTruthy();
    expect(store.messages.list(s.id, { afterSeq: 2 }).map((m) => m.seq)).toEqual([3, 4]);
  });

  it('caches token counts and replaces UI meta, leaving the message itself unchanged', () => {
    const store = tmp.open();
    const s = store.sessions.create();
    const [a, b] = store.messages.append(s.id, turn);
    store.messages.setTokens([
      { id: a!.id, tokens: 7 },
      { id: b!.id, tokens: 31 },
    ]);
    const updated = store.messages.setMeta(b!.id, { toolStatus: 'approved' });
    expect(updated.meta).toEqual({ toolStatus: 'approved' });
    expect(updated.content).toBe(b!.content);
    const listed = store.messages.list(s.id);
    expect(listed.map((m) => m.tokens)).toEqual([7, 31, null, null]);
    expect(() => store.messages.setMeta('missing', {})).toThrow(/does not exist/);
    expect(() => store.messages.setTokens([{ id: a!.id, tokens: -1 }])).toThrow(StoreError);
  });

  it('offers no way to edit or delete a message (append-only history)', () => {
    const store = tmp.open();
    const keys = Object.keys(store.messages).sort();
    // switchTo only moves which branch is shown; no message changes.
    expect(keys).toEqual([
      'append',
      'count',
      'get',
      'lastSeq',
      'leaf',
      'list',
      'listAll',
      'search',
      'setMeta',
      'setTokens',
      'switchTo',
      'versions',
    ]);
  });

  it('stores tool calls as JSON and content verbatim, including non-ASCII text', () => {
    const store = tmp.open();
    const s = store.sessions.create();
    const [m] = store.messages.append(s.id, [{ role: 'user', content: '系统找不到指定的路径 😀 \u0000 end' }]);
    store.close();
    const db = new Database(store.file, { readonly: true });
    const row = db.prepare('SELECT content FROM messages WHERE id = ?').get(m!.id) as { content: string };
    db.close();
    expect(row.content).toBe('系统找不到指定的路径 😀 \u0000 end');
  });
});
