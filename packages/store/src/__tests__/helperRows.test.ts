import { describe, expect, it } from 'vitest';
import { StoreError } from '../types';
import { steppingClock, useTempDir } from './helpers';

// Issue 39: a helper is a session under its parent session (hidden from the list, deleted with
// it) with a row saying what it was asked and how it ended.

const tmp = useTempDir();

const task = (index: number, text: string) => ({
  toolCallId: 'call-d',
  index,
  task: text,
  role: 'explore',
  model: 'm',
  tools: ['read_file', 'grep'],
});

describe('helper rows', () => {
  it('are sessions of their own under the parent: queued, running, ended; never in the list', () => {
    const store = tmp.open({ now: steppingClock() });
    const parent = store.sessions.create('parent');
    const [a, b] = store.helpers.create(parent.id, '/work/project', [
      task(0, 'Read alpha.txt\nand say what it holds.'),
      task(1, 'Read beta.txt'),
    ]);
    expect([a!.status, b!.status]).toEqual(['queued', 'queued']);
    // Its session: titled after the task's first line, in the parent's folder, under the parent.
    expect(store.sessions.get(a!.id)).toMatchObject({
      title: 'Read alpha.txt',
      workingFolder: '/work/project',
      parentId: parent.id,
    });
    expect(store.sessions.get(parent.id)).not.toHaveProperty('parentId');
    expect(store.sessions.list().map((s) => s.id)).toEqual([parent.id]);

    expect(store.helpers.started(a!.id).status).toBe('running');
    const ended = store.helpers.finish(a!.id, { status: 'done', report: 'apples', error: null, returnedTokens: 12 });
    expect(ended).toMatchObject({ status: 'done', report: 'apples', returnedTokens: 12 });
    expect(ended.endedAt).not.toBeNull();
    // An ended helper is not started again.
    expect(store.helpers.started(a!.id).status).toBe('done');
    expect(store.helpers.list(parent.id).map((h) => [h.index, h.status])).toEqual([
      [0, 'done'],
      [1, 'queued'],
    ]);
    expect(() =>
      store.helpers.finish('nope', { status: 'failed', report: null, error: 'x', returnedTokens: null }),
    ).toThrow(StoreError);
  });

  it('a helper cannot have helpers of its own, and a call has 1 to 5 tasks', () => {
    const store = tmp.open();
    const parent = store.sessions.create('parent');
    const [h] = store.helpers.create(parent.id, '/p', [task(0, 'look')]);
    expect(() => store.helpers.create(h!.id, '/p', [task(0, 'deeper')])).toThrow(/is itself a helper/);
    expect(() => store.helpers.create(parent.id, '/p', [])).toThrow(StoreError);
    expect(() =>
      store.helpers.create(
        parent.id,
        '/p',
        Array.from({ length: 6 }, (_, i) => task(i, `t${i}`)),
      ),
    ).toThrow(StoreError);
  });

  it('count their calls by tool, apart from the parent’s cost, and go with the parent', () => {
    const store = tmp.open({ now: steppingClock() });
    const parent = store.sessions.create('parent');
    const [h] = store.helpers.create(parent.id, '/p', [task(0, 'look for the ripe ones')]);
    store.messages.append(h!.id, [
      { role: 'user', content: 'look for the ripe ones' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
          { id: 'c2', type: 'function', function: { name: 'grep', arguments: '{"pattern":"x"}' } },
        ],
      },
      { role: 'tool', content: 'a', tool_call_id: 'c1', name: 'read_file' },
      { role: 'tool', content: 'x', tool_call_id: 'c2', name: 'grep' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c3', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } }],
      },
      { role: 'tool', content: 'b', tool_call_id: 'c3', name: 'read_file' },
      { role: 'assistant', content: 'The ripe ones are in b.' },
    ]);
    expect(store.helpers.toolCalls(parent.id).get(h!.id)).toEqual([
      { name: 'read_file', count: 2 },
      { name: 'grep', count: 1 },
    ]);
    const call = (sessionId: string, prompt: number) =>
      store.usage.record({
        sessionId,
        profileId: null,
        model: 'm',
        kind: 'chat',
        promptTokens: prompt,
        cachedTokens: 0,
        completionTokens: 10,
      });
    call(parent.id, 1000);
    call(h!.id, 300);
    call(h!.id, 400);
    store.helpers.finish(h!.id, { status: 'done', report: 'in b', error: null, returnedTokens: 25 });
    const calls = store.usage.calls(parent.id);
    expect(calls.groups.map((g) => g.promptTokens)).toEqual([1000]);
    expect(calls.helpers).toMatchObject({ count: 1, returnedTokens: 25 });
    expect(calls.helpers!.groups.map((g) => [g.calls, g.promptTokens])).toEqual([[2, 700]]);
    // A session without helpers says nothing of them.
    expect(store.usage.calls(store.sessions.create('plain').id)).not.toHaveProperty('helpers');

    // Its words are found, naming the session they belong to.
    const [hit] = store.messages.search('ripe ones are');
    expect(hit).toMatchObject({ sessionId: h!.id, parentSessionId: parent.id });

    store.sessions.delete(parent.id);
    expect(store.sessions.get(h!.id)).toBeNull();
    expect(store.helpers.get(h!.id)).toBeNull();
    expect(store.messages.search('ripe ones')).toEqual([]);
  });

  it('after a crash, the next start marks the open ones interrupted and keeps what they stored', () => {
    const store = tmp.open({ now: steppingClock() });
    const parent = store.sessions.create('parent');
    const [a, b, c] = store.helpers.create(parent.id, '/p', [task(0, 'one'), task(1, 'two'), task(2, 'three')]);
    store.helpers.started(a!.id);
    store.messages.append(a!.id, [{ role: 'user', content: 'one' }]);
    store.helpers.started(c!.id);
    store.helpers.finish(c!.id, { status: 'done', report: 'three', error: null, returnedTokens: 3 });
    store.close();

    const again = tmp.open({ now: steppingClock(1_800_000_000_000) });
    expect(again.helpers.interruptOpen().map((h) => [h.id, h.status])).toEqual([
      [a!.id, 'interrupted'],
      [b!.id, 'interrupted'],
    ]);
    expect(again.helpers.list(parent.id).map((h) => h.status)).toEqual(['interrupted', 'interrupted', 'done']);
    expect(again.messages.list(a!.id).map((m) => m.content)).toEqual(['one']);
    expect(again.helpers.interruptOpen()).toEqual([]);
  });
});
