import { describe, expect, it } from 'vitest';
import { AGENT_ONLY } from '@threadline/protocol';
import { StoreError } from '../types';
import { steppingClock, useTempDir } from './helpers';

const tmp = useTempDir();

describe('branches', () => {
  it('an edit starts a new branch from the same parent; the old one is kept and can be shown again', () => {
    const store = tmp.open({ now: steppingClock() });
    const s = store.sessions.create();
    const [q1, a1] = store.messages.append(s.id, [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
    ]);
    const [q2, a2] = store.messages.append(s.id, [
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'a2' },
    ]);
    expect(q2!.parentId).toBe(a1!.id);
    // Edit q2: a sibling of q2 under a1.
    const [q2b] = store.messages.append(s.id, [{ role: 'user', content: 'q2 edited' }], { parentId: a1!.id });
    const [a2b] = store.messages.append(s.id, [{ role: 'assistant', content: 'a2 edited' }]);
    expect(store.messages.list(s.id).map((m) => m.content)).toEqual(['q1', 'a1', 'q2 edited', 'a2 edited']);
    expect(store.messages.listAll(s.id)).toHaveLength(6);
    // The session list counts the branch shown.
    expect(store.sessions.get(s.id)!.messageCount).toBe(4);
    const v = store.messages.versions(s.id);
    expect(v[q2b!.id]).toEqual({ index: 2, count: 2, ids: [q2!.id, q2b!.id] });
    expect(v[q2!.id]).toMatchObject({ index: 1, count: 2 });
    // Answers of different requests are not versions of each other.
    expect(v[a2!.id]).toBeUndefined();
    expect(v[q1!.id]).toBeUndefined();
    // Back to version 1: its newest descendant becomes the leaf.
    expect(store.messages.switchTo(s.id, q2!.id)).toBe(a2!.id);
    expect(store.messages.list(s.id).map((m) => m.content)).toEqual(['q1', 'a1', 'q2', 'a2']);
    store.messages.append(s.id, [{ role: 'user', content: 'q3' }]);
    expect(store.sessions.get(s.id)!.messageCount).toBe(5);
    // History never changed: the edited branch is still whole.
    expect(store.messages.switchTo(s.id, q2b!.id)).toBe(a2b!.id);
    expect(store.sessions.get(s.id)!.messageCount).toBe(4);
    expect(store.messages.list(s.id).map((m) => m.content)).toEqual(['q1', 'a1', 'q2 edited', 'a2 edited']);
  });

  it('editing the first message makes a second root; regenerating makes a reply version', () => {
    const store = tmp.open({ now: steppingClock() });
    const s = store.sessions.create();
    const [q1, a1] = store.messages.append(s.id, [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
    ]);
    store.messages.switchTo(s.id, q1!.id, { exact: true });
    const [a1b] = store.messages.append(s.id, [{ role: 'assistant', content: 'a1 again' }]);
    expect(store.messages.versions(s.id)[a1b!.id]).toEqual({ index: 2, count: 2, ids: [a1!.id, a1b!.id] });
    const [root2] = store.messages.append(s.id, [{ role: 'user', content: 'q1 rewritten' }], { parentId: null });
    expect(root2!.parentId).toBeNull();
    expect(store.messages.list(s.id).map((m) => m.content)).toEqual(['q1 rewritten']);
    expect(store.messages.versions(s.id)[root2!.id]).toMatchObject({ index: 2, count: 2 });
  });

  it('refuses a parent or a switch target from another session', () => {
    const store = tmp.open();
    const a = store.sessions.create();
    const b = store.sessions.create();
    const [m] = store.messages.append(a.id, [{ role: 'user', content: 'x' }]);
    expect(() => store.messages.append(b.id, [{ role: 'user', content: 'y' }], { parentId: m!.id })).toThrow(
      StoreError,
    );
    expect(() => store.messages.switchTo(b.id, m!.id)).toThrow(/not a message of session/);
    expect(store.messages.list(b.id)).toEqual([]);
  });

  it("a compaction belongs to its branch: another branch's never hides this one's messages", () => {
    const store = tmp.open({ now: steppingClock() });
    const s = store.sessions.create();
    const [q1, a1] = store.messages.append(s.id, [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
    ]);
    const [q2] = store.messages.append(s.id, [{ role: 'user', content: 'q2' }]);
    const { record } = store.compactions.apply(
      s.id,
      {
        strategy: 'progressive',
        trigger: 'manual',
        steps: [],
        hiddenIds: [q1!.id, a1!.id, q2!.id],
        tokensBefore: 10,
        tokensAfter: 2,
      },
      [{ role: 'user', content: 'summary', kind: 'summary', visibility: AGENT_ONLY }],
    );
    expect(record.afterSeq).toBe(q2!.seq);
    expect(store.compactions.active(s.id).map((c) => c.id)).toEqual([record.id]);
    // Edit q2: the new branch forks before the compaction.
    store.messages.append(s.id, [{ role: 'user', content: 'q2 edited' }], { parentId: a1!.id });
    expect(store.compactions.active(s.id)).toEqual([]);
    expect(store.compactions.list(s.id)).toEqual([]);
    expect(store.compactions.undoLast(s.id)).toBeNull();
    expect(store.compactions.listAll(s.id)).toHaveLength(1);
    // Back on the compacted branch, it applies again (and was never undone).
    store.messages.switchTo(s.id, q2!.id);
    expect(store.compactions.active(s.id).map((c) => c.id)).toEqual([record.id]);
    expect(store.messages.list(s.id).map((m) => m.content)).toEqual(['q1', 'a1', 'q2', 'summary']);
  });
});
