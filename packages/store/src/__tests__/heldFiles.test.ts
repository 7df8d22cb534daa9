import { describe, expect, it } from 'vitest';
import { useTempDir } from './helpers';

describe('held files repo', () => {
  const tmp = useTempDir();

  it('adds, lists in order, removes, and goes with its session', () => {
    let t = 1000;
    const store = tmp.open({ now: () => t++ });
    const s = store.sessions.create('a');
    const other = store.sessions.create('b');
    const row = (sessionId: string, p: string) => ({
      sessionId,
      folder: '/w',
      path: p,
      kind: 'file' as const,
      reason: 'envrc' as const,
      entries: null,
      target: null,
      keepable: true,
    });
    const first = store.held.add(row(s.id, '.envrc'));
    const link = store.held.add({
      ...row(s.id, 'out'),
      kind: 'link',
      reason: 'link_outside',
      target: '/home/u/.ssh',
      keepable: false,
    });
    store.held.add(row(other.id, 'sub/.envrc'));
    expect(first).toMatchObject({ path: '.envrc', kind: 'file', reason: 'envrc', keepable: true });
    expect(store.held.list(s.id).map((f) => [f.path, f.target, f.keepable])).toEqual([
      ['.envrc', null, true],
      ['out', '/home/u/.ssh', false],
    ]);
    store.held.remove(link.id);
    expect(store.held.list(s.id).map((f) => f.id)).toEqual([first.id]);
    store.sessions.delete(s.id);
    expect(store.held.list(s.id)).toEqual([]);
    expect(store.held.list(other.id).map((f) => f.path)).toEqual(['sub/.envrc']);
  });
});
