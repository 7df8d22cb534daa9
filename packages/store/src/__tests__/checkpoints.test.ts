import { describe, expect, it } from 'vitest';
import { StoreError } from '../types';
import { useTempDir } from './helpers';

const skipped = { tooLarge: ['big.bin'], overBudget: 0, nestedRepos: [], maxFileBytes: 1024, maxTotalBytes: 4096 };

describe('checkpoints repo', () => {
  const tmp = useTempDir();

  it('adds, lists in order, changes state, and goes with its session', () => {
    let t = 1000;
    const store = tmp.open({ now: () => t++ });
    const s = store.sessions.create('a');
    const other = store.sessions.create('b');
    const files = [
      { path: 'a.txt', status: 'modified' as const, added: 1, removed: 1 },
      { path: 'img.png', status: 'added' as const, added: null, removed: null },
    ];
    const first = store.checkpoints.add({
      sessionId: s.id,
      anchorId: 'm2',
      userMessageId: 'm1',
      folder: '/w',
      beforeCommit: 'b1',
      afterCommit: 'a1',
      files,
      skipped,
    });
    const second = store.checkpoints.add({
      sessionId: s.id,
      anchorId: null,
      userMessageId: null,
      folder: '/w',
      beforeCommit: 'b2',
      afterCommit: 'a2',
      files: files.slice(0, 1),
      skipped: { ...skipped, tooLarge: [] },
    });
    store.checkpoints.add({
      sessionId: other.id,
      anchorId: null,
      userMessageId: null,
      folder: '/x',
      beforeCommit: 'b',
      afterCommit: 'a',
      files,
      skipped,
    });
    expect(first).toMatchObject({ filesChanged: 2, files, skipped, state: 'applied', anchorId: 'm2' });
    expect(store.checkpoints.list(s.id).map((c) => c.id)).toEqual([first.id, second.id]);
    const undone = store.checkpoints.setState(first.id, 'undone');
    expect(undone.state).toBe('undone');
    expect(undone.updatedAt).toBeGreaterThan(first.updatedAt);
    expect(store.checkpoints.get(first.id)?.state).toBe('undone');
    expect(() => store.checkpoints.setState('nope', 'undone')).toThrow(StoreError);
    expect(store.checkpoints.setState(second.id, 'overwritten').state).toBe('overwritten');
    // A folder's checkpoints of every session, oldest first.
    const third = store.checkpoints.add({
      sessionId: other.id,
      anchorId: null,
      userMessageId: null,
      folder: '/w',
      beforeCommit: 'b3',
      afterCommit: 'a3',
      files,
      skipped,
    });
    expect(store.checkpoints.listFolder('/w').map((c) => c.id)).toEqual([first.id, second.id, third.id]);
    store.sessions.delete(s.id);
    expect(store.checkpoints.list(s.id)).toEqual([]);
    expect(store.checkpoints.list(other.id)).toHaveLength(2);
    expect(store.checkpoints.listFolder('/w').map((c) => c.id)).toEqual([third.id]);
  });
});
