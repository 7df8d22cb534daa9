import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as context from '@threadline/context';
import type { FakeReply } from '@threadline/fake-llm';
import { openStore, type Store } from '@threadline/store';
import { SessionSnapshots } from '../session/snapshot';
import { Sessions } from '../session/session';
import { lastIsTool, startHarness, type Harness } from './harness';

// The real engine, with its view builder counted.
vi.mock('@threadline/context', async (importOriginal) => {
  const real = await importOriginal<typeof import('@threadline/context')>();
  return { ...real, buildView: vi.fn(real.buildView) };
});
const buildView = vi.mocked(context.buildView);

let h: Harness | null = null;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = null;
});

/** Every store read that walks or returns a session's whole branch. */
function spyBranchReads(store: Store) {
  return [
    vi.spyOn(store.messages, 'list'),
    vi.spyOn(store.messages, 'listAll'),
    vi.spyOn(store.compactions, 'active'),
    vi.spyOn(store.compactions, 'list'),
    vi.spyOn(store.memory, 'facts'),
  ];
}
const reads = (spies: ReturnType<typeof spyBranchReads>): number => spies.reduce((n, s) => n + s.mock.calls.length, 0);

const text = (i: number) => `message ${i}: ${'lorem ipsum dolor sit amet '.repeat(6)}`;
const lastRequest = (x: Harness) =>
  x.llm
    .chatRequests()
    .filter((r) => !r.isSummaryRequest)
    .at(-1)!;
const sentContents = (x: Harness): unknown[] =>
  (lastRequest(x).body as { messages: { content: unknown }[] }).messages.map((m) => m.content);
const sent = (x: Harness): string => JSON.stringify((lastRequest(x).body as { messages: unknown[] }).messages);

describe('a session in memory', () => {
  it('a step reads no history from SQLite once the session is open, tool steps included', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'auto', compaction: { strategy: 'cfpm_memory_v1' } },
      llm: {
        defaultReply: (req): FakeReply =>
          lastIsTool(req) ? { content: 'listed' } : { toolCalls: [{ name: 'shell', arguments: { command: 'ls' } }] },
      },
    });
    for (let i = 0; i < 20; i++)
      h.store.messages.append(h.sessionId, [
        { role: 'user', content: text(i) },
        { role: 'assistant', content: text(i) },
      ]);
    // Opening the session (what the renderer asks first) loads it; the meter counts it once.
    await h.api['messages.list']({ sessionId: h.sessionId });
    await h.api['context.usage']({ sessionId: h.sessionId });
    const spies = spyBranchReads(h.store);
    // A refresh is stored with its step (turns.commit), the turn start's on its own.
    const commit = vi.spyOn(h.store.turns, 'commit');
    const candidates = vi.spyOn(h.store.memory, 'candidates');
    const forkSeq = vi.spyOn(h.store.memory, 'forkSeq');
    const setTokens = vi.spyOn(h.store.messages, 'setTokens');
    await h.turn('list the folder');
    await h.turn('and again');
    await h.api['context.usage']({ sessionId: h.sessionId });
    expect(reads(spies)).toBe(0);
    // The CFPM refreshes (turn start, each commit) hand the store the branch from memory: it walks
    // no branch, and the fork point is asked once per opened session.
    const refreshes = commit.mock.calls.map((c) => c[1].memory).filter((m) => m !== undefined);
    expect(refreshes.length).toBeGreaterThanOrEqual(4);
    for (const m of refreshes) expect(m.branch).toBeDefined();
    for (const call of candidates.mock.calls) expect(call[2]).toBeDefined();
    expect(forkSeq.mock.calls.length).toBeLessThanOrEqual(1);
    // New messages are counted before they are stored: no second write for their counts.
    expect(setTokens).not.toHaveBeenCalled();
    expect(h.history().every((m) => m.tokens !== null)).toBe(true);
    // Two model calls per turn, each sent what the store holds.
    expect(h.llm.chatRequests().filter((r) => !r.isSummaryRequest)).toHaveLength(4);
    expect(sent(h)).toContain('and again');
    expect(sent(h)).toContain(text(19).slice(0, 40));
  });

  it('builds the view once per model call; the auto trigger, the usage event and context.usage reuse it', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'auto' },
      llm: {
        defaultReply: (req): FakeReply =>
          lastIsTool(req) ? { content: 'done' } : { toolCalls: [{ name: 'shell', arguments: { command: 'ls' } }] },
      },
    });
    await h.turn('warm up');
    buildView.mockClear();
    await h.turn('list it');
    // Two model calls, then the meter after the final answer was committed.
    expect(h.llm.chatRequests().filter((r) => JSON.stringify(r.body).includes('list it'))).toHaveLength(2);
    expect(buildView).toHaveBeenCalledTimes(3);
    buildView.mockClear();
    await h.api['context.usage']({ sessionId: h.sessionId });
    expect(buildView).not.toHaveBeenCalled();
  });

  it('a compaction, its undo and a memory edit reach the next request without reading the history again', async () => {
    h = await startHarness({
      settings: { compaction: { strategy: 'cfpm_memory_v1' } },
      // Long answers: the user's own words are carried whole, so a compaction reduces what else was said.
      llm: { defaultReply: { content: `done: ${'what was done and why '.repeat(60)}` } },
    });
    for (let t = 0; t < 8; t++) await h.turn(`task ${t}: ${'details of the task '.repeat(10)}`);
    const spies = spyBranchReads(h.store);
    const run = await h.api['compaction.run']({ sessionId: h.sessionId });
    expect(run.ok).toBe(true);
    const hidden = h.store.messages.get(run.compaction!.hiddenIds[0]!)!;
    await h.turn('after the compaction');
    expect(sentContents(h)).not.toContain(hidden.content);

    await h.api['compaction.undo']({ sessionId: h.sessionId });
    await h.turn('after the undo');
    expect(sentContents(h)).toContain(hidden.content);

    await h.api['memory.facts.upsert']({ sessionId: h.sessionId, category: 'note', content: 'Never touch prod-db-7' });
    await h.turn('after the memory edit');
    expect(sent(h)).toContain('Never touch prod-db-7');
    // The compaction itself reads the branch whole once (the engine works on all of it); the
    // turns after it read nothing.
    expect(spies[0]!.mock.calls).toHaveLength(0);
    expect(reads(spies)).toBe(0);
  });

  it('a write that bypassed the snapshot is noticed (the leaf moved) and read again', async () => {
    h = await startHarness({ llm: { defaultReply: { content: 'ok' } } });
    await h.turn('first');
    h.store.messages.append(h.sessionId, [{ role: 'user', content: 'written by someone else' }]);
    await h.turn('second');
    expect(sent(h)).toContain('written by someone else');
  });

  it('an edit and a branch switch show the other branch at once', async () => {
    h = await startHarness({ llm: { defaultReply: { content: 'ok' } } });
    await h.turn('the old request');
    const old = h.history().find((m) => m.content === 'the old request')!;
    await h.api['chat.edit']({ sessionId: h.sessionId, messageId: old.id, text: 'the new request' });
    await h.api.idle(h.sessionId);
    expect(sent(h)).toContain('the new request');
    expect(sent(h)).not.toContain('the old request');
    const branch = await h.api['branches.switch']({ sessionId: h.sessionId, messageId: old.id });
    expect(branch.map((m) => m.content)).toContain('the old request');
    await h.turn('go on');
    expect(sent(h)).toContain('the old request');
    expect(sent(h)).not.toContain('the new request');
  });
});

describe('SessionSnapshots', () => {
  let dir: string;
  let store: Store;
  afterEach(() => {
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const open = () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tl-snap-'));
    store = openStore({ file: path.join(dir, 'db.sqlite'), env: {}, allowPlaintextKeys: true });
  };

  it('loads once, keeps a few (least recently used go first), drops the deleted and the idle', () => {
    open();
    let now = 0;
    const snaps = new SessionSnapshots(store, () => now, { max: 2, idleMs: 1000 });
    const [a, b, c] = ['a', 'b', 'c'].map((t) => store.sessions.create(t).id) as [string, string, string];
    const list = vi.spyOn(store.messages, 'list');
    snaps.get(a);
    snaps.get(a);
    expect(list).toHaveBeenCalledTimes(1);
    snaps.get(b);
    snaps.get(a); // b is now the least recently used
    snaps.get(c);
    expect([snaps.has(a), snaps.has(b), snaps.has(c)]).toEqual([true, false, true]);

    snaps.deleteSession(c);
    expect(snaps.has(c)).toBe(false);
    expect(store.sessions.get(c)).toBeNull();

    now = 500;
    snaps.get(b);
    now = 1200; // a unused for 1200 ms, b for 700
    snaps.sweep();
    expect([snaps.has(a), snaps.has(b)]).toEqual([false, true]);
    snaps.dispose();
    expect(snaps.has(b)).toBe(false);
  });

  it('is held by its session in the one registry of sessions: loaded, held, dropped and deleted there', () => {
    open();
    const sessions = new Sessions();
    const snaps = new SessionSnapshots(store, () => 0, { max: 1 }, undefined, sessions);
    const [a, b] = ['a', 'b'].map((t) => store.sessions.create(t).id) as [string, string];
    const snap = snaps.hold(a);
    expect(sessions.get(a).snapshot).toBe(snap);
    expect(sessions.get(a).held).toBe(true);
    // Over the limit, but a held one stays; released, it is the least recently used and goes.
    snaps.get(b);
    expect(sessions.get(a).snapshot).toBe(snap);
    snaps.release(a);
    snaps.get(b);
    snaps.get(a);
    expect([sessions.get(a).snapshot !== null, sessions.get(b).snapshot]).toEqual([true, null]);
    sessions.delete(a);
    expect(snaps.has(a)).toBe(false);
    snaps.dispose();
  });

  it('appends in place without full outputs; an append with a parent (an edit) drops it', () => {
    open();
    const snaps = new SessionSnapshots(store, () => 0);
    const id = store.sessions.create('s').id;
    const snap = snaps.get(id);
    const [tool] = snaps.append(id, [{ role: 'user', content: 'short', fullOutput: 'the whole long text' }]);
    expect(tool!.fullOutput).toBe('the whole long text');
    expect(snap.history).toHaveLength(1);
    expect(snap.history[0]!.fullOutput).toBeUndefined();
    expect(snaps.get(id)).toBe(snap);
    snaps.append(id, [{ role: 'user', content: 'edited' }], { parentId: null });
    expect(snaps.has(id)).toBe(false);
    expect(snaps.get(id).history.map((m) => m.content)).toEqual(['edited']);
  });
});
