import { describe, expect, it } from 'vitest';
import type { NewCompaction } from '../types';
import { steppingClock, useTempDir } from './helpers';

const tmp = useTempDir();

function seeded() {
  const store = tmp.open({ now: steppingClock() });
  const s = store.sessions.create('c');
  const msgs = store.messages.append(
    s.id,
    Array.from({ length: 6 }, (_, i) => ({
      role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant',
      content: `m${i}`,
    })),
  );
  return { store, s, msgs };
}

const record = (hiddenIds: string[], extra: Partial<NewCompaction> = {}): NewCompaction => ({
  strategy: 'legacy_segmented',
  trigger: 'manual',
  steps: [{ name: 'keep_head_tail', tokensBefore: 100, tokensAfter: 40, hidden: hiddenIds.length }],
  hiddenIds,
  tokensBefore: 100,
  tokensAfter: 40,
  summary: 'the summary',
  instructions: 'focus on files',
  ...extra,
});

describe('compactions', () => {
  it('stores the record and its agent-only messages together, never touching history', () => {
    const { store, s, msgs } = seeded();
    const hidden = msgs.slice(1, 4).map((m) => m.id);
    const { record: rec, inserted } = store.compactions.apply(s.id, record(hidden), [
      { role: 'user', content: 'Summary: …', kind: 'summary' },
      { role: 'user', content: 'Continue from the summary.', kind: 'continuation' },
    ]);
    expect(rec).toMatchObject({
      sessionId: s.id,
      hiddenIds: hidden,
      afterSeq: 6,
      active: true,
      undoneAt: null,
      summary: 'the summary',
      instructions: 'focus on files',
    });
    expect(rec.steps[0]).toMatchObject({ name: 'keep_head_tail', hidden: 3 });
    expect(rec.insertedIds).toEqual(inserted.map((m) => m.id));
    expect(inserted.map((m) => [m.seq, m.kind, m.visibility.user, m.visibility.agent, m.meta?.compactionId])).toEqual([
      [7, 'summary', false, true, rec.id],
      [8, 'continuation', false, true, rec.id],
    ]);
    // History is intact: the hidden messages are still there, unchanged.
    expect(store.messages.list(s.id).slice(0, 6)).toEqual(msgs);
    expect(store.compactions.list(s.id)).toEqual([rec]);
    expect(store.compactions.get(rec.id)).toEqual(rec);
  });

  it('applies nothing when a hidden id is foreign: no record and no inserted message', () => {
    const { store, s, msgs } = seeded();
    const other = store.sessions.create('other');
    const [foreign] = store.messages.append(other.id, [{ role: 'user', content: 'x' }]);
    expect(() =>
      store.compactions.apply(s.id, record([msgs[0]!.id, foreign!.id]), [
        { role: 'user', content: 'S', kind: 'summary' },
      ]),
    ).toThrow(/hidden ids/);
    expect(store.compactions.list(s.id)).toEqual([]);
    expect(store.messages.count(s.id)).toBe(6);
  });

  it('applies nothing when an inserted message is invalid', () => {
    const { store, s, msgs } = seeded();
    expect(() =>
      store.compactions.apply(s.id, record([msgs[0]!.id]), [
        { role: 'user', content: 'ok' },
        { role: 'nobody' as 'user', content: 'bad' },
      ]),
    ).toThrow();
    expect(store.compactions.list(s.id)).toEqual([]);
    expect(store.messages.count(s.id)).toBe(6);
  });

  it('rejects an invalid record (unknown strategy)', () => {
    const { store, s } = seeded();
    expect(() => store.compactions.apply(s.id, record([], { strategy: 'magic' as 'progressive' }), [])).toThrow(
      /Invalid compaction: strategy/,
    );
  });

  it('undoes the newest active compaction first, one at a time, and keeps the records', () => {
    const { store, s, msgs } = seeded();
    const first = store.compactions.apply(s.id, record([msgs[0]!.id]), []).record;
    const second = store.compactions.apply(s.id, record([msgs[1]!.id], { trigger: 'auto', afterSeq: 3 }), []).record;
    expect(second.afterSeq).toBe(3);
    expect(store.compactions.active(s.id).map((c) => c.id)).toEqual([first.id, second.id]);

    const undone = store.compactions.undoLast(s.id);
    expect(undone).toMatchObject({ id: second.id, active: false });
    expect(undone!.undoneAt).toBeGreaterThan(second.createdAt);
    expect(store.compactions.active(s.id).map((c) => c.id)).toEqual([first.id]);
    expect(store.compactions.undoLast(s.id)?.id).toBe(first.id);
    expect(store.compactions.undoLast(s.id)).toBeNull();
    expect(store.compactions.list(s.id).map((c) => [c.id, c.active])).toEqual([
      [first.id, false],
      [second.id, false],
    ]);
  });
});

describe('store.transaction', () => {
  it('a compaction and its memory snapshot land together, or neither does', () => {
    const { store, s, msgs } = seeded();
    const inserted = [
      { role: 'user' as const, kind: 'memory_snapshot' as const, content: '[CFPM_MEMORY_V1] checkpoint' },
    ];
    expect(() =>
      store.transaction(() => {
        store.compactions.apply(s.id, record([msgs[0]!.id]), inserted);
        // The second write fails: the first must be rolled back with it.
        store.memory.refresh(s.id, {
          facts: [],
          candidates: [],
          snapshot: { compactionId: 'x', content: '', factCount: -1 },
        });
      }),
    ).toThrow();
    expect(store.compactions.list(s.id)).toEqual([]);
    expect(store.messages.list(s.id)).toHaveLength(6);

    const r = store.transaction(() => {
      const applied = store.compactions.apply(s.id, record([msgs[0]!.id]), inserted);
      store.memory.refresh(s.id, {
        facts: [],
        candidates: [],
        snapshot: { compactionId: applied.record.id, content: 'snap', factCount: 0 },
      });
      return applied;
    });
    expect(store.compactions.list(s.id).map((c) => c.id)).toEqual([r.record.id]);
    expect(store.memory.snapshots(s.id).map((x) => x.content)).toEqual(['snap']);
  });
});
