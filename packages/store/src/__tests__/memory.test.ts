import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { MemoryFact } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { MEMORY_CAPS } from '../types';
import { autoFact, steppingClock, useTempDir } from './helpers';

const tmp = useTempDir();

function setup() {
  const store = tmp.open({ now: steppingClock() });
  const s = store.sessions.create('m');
  return { store, sid: s.id };
}

describe('memory', () => {
  it('replaces the auto facts with the engine list, keeps user facts, and stores candidates and a snapshot', () => {
    const { store, sid } = setup();
    const user = store.memory.upsertFact(sid, { category: 'goal', content: 'ship the release' });
    store.memory.refresh(sid, {
      facts: [autoFact(sid, 'a1', '/tmp/a.txt'), autoFact(sid, 'a2', '/tmp/b.txt')],
      candidates: [],
    });
    const result = store.memory.refresh(sid, {
      facts: [
        autoFact(sid, 'a2', '/tmp/b.txt', { evidenceCount: 2, confidence: 0.9 }),
        { ...user, evidenceCount: 3, content: 'engine must not rewrite this' },
      ],
      candidates: [
        { category: 'artifact', content: '/tmp/b.txt', source: 'cfpm_auto', decision: 'accepted', reason: 'accepted' },
        {
          category: 'artifact',
          content: '2024/7/19',
          source: 'cfpm_auto',
          decision: 'rejected',
          reason: 'artifact_date_only',
        },
      ],
      snapshot: { content: '[CFPM_MEMORY_V1] …', factCount: 2 },
    });
    const byId = Object.fromEntries(result.facts.map((f) => [f.id, f]));
    expect(Object.keys(byId).sort()).toEqual(['a2', user.id].sort());
    expect(byId.a2).toMatchObject({ evidenceCount: 2, confidence: 0.9 });
    // Only the engine's fields of a user fact change.
    expect(byId[user.id]).toMatchObject({ content: 'ship the release', evidenceCount: 3, source: 'user' });
    expect(store.memory.candidates(sid).map((c) => c.reason)).toEqual(['artifact_date_only', 'accepted']);
    expect(store.memory.candidates(sid, 1)).toHaveLength(1);
    expect(store.memory.snapshots(sid)).toEqual([
      expect.objectContaining({ content: '[CFPM_MEMORY_V1] …', factCount: 2, compactionId: null }),
    ]);
  });

  it("never undoes a user's pin or forget, and keeps those facts when the engine drops them", () => {
    const { store, sid } = setup();
    store.memory.refresh(sid, {
      facts: [autoFact(sid, 'p', '/pinned'), autoFact(sid, 'f', '/forgotten'), autoFact(sid, 'x', '/dropped')],
      candidates: [],
    });
    store.memory.setStatus('p', 'active', true);
    store.memory.setStatus('f', 'forgotten');
    store.memory.refresh(sid, {
      facts: [autoFact(sid, 'f', '/forgotten', { status: 'active', evidenceCount: 5 })],
      candidates: [],
    });
    const facts = Object.fromEntries(store.memory.facts(sid).map((f) => [f.id, f]));
    expect(Object.keys(facts).sort()).toEqual(['f', 'p']);
    expect(facts.p!.pinned).toBe(true);
    expect(facts.f).toMatchObject({ status: 'forgotten', evidenceCount: 5 });
  });

  it('enforces the caps: 120 auto facts (least valuable go first), 800 candidates, 100 snapshots', () => {
    const { store, sid } = setup();
    const facts = Array.from({ length: MEMORY_CAPS.autoFacts + 5 }, (_, i) =>
      autoFact(sid, `f${i}`, `/p/${i}`, { updatedAt: 1000 + i, status: i === 0 ? 'stale' : 'active', pinned: i === 1 }),
    );
    const candidates = Array.from({ length: MEMORY_CAPS.candidates + 30 }, (_, i) => ({
      category: 'note' as const,
      content: `c${i}`,
      source: 'cfpm_auto' as const,
      decision: 'rejected' as const,
      reason: 'too_short' as const,
      createdAt: i,
    }));
    const r = store.memory.refresh(sid, { facts, candidates });
    expect(r.trimmed).toEqual({ facts: 5, candidates: 30, snapshots: 0 });
    const kept = new Set(store.memory.facts(sid).map((f) => f.id));
    expect(kept.size).toBe(MEMORY_CAPS.autoFacts);
    // The stale one goes first, then the oldest active ones; the pinned one stays although old.
    expect(['f0', 'f2', 'f3', 'f4', 'f5'].some((id) => kept.has(id))).toBe(false);
    expect(kept.has('f1')).toBe(true);
    const cands = store.memory.candidates(sid, 10_000);
    expect(cands).toHaveLength(MEMORY_CAPS.candidates);
    expect(cands.at(-1)!.content).toBe('c30');

    for (let i = 0; i < MEMORY_CAPS.snapshots + 3; i++)
      store.memory.refresh(sid, { facts: [], candidates: [], snapshot: { content: `s${i}`, factCount: 0 } });
    const snaps = store.memory.snapshots(sid);
    expect(snaps).toHaveLength(MEMORY_CAPS.snapshots);
    expect(snaps[0]!.content).toBe('s3');
  });

  it('refresh is one transaction: an invalid candidate leaves facts untouched', () => {
    const { store, sid } = setup();
    store.memory.refresh(sid, { facts: [autoFact(sid, 'a', '/a')], candidates: [] });
    expect(() =>
      store.memory.refresh(sid, {
        facts: [autoFact(sid, 'b', '/b')],
        candidates: [
          {
            category: 'note',
            content: 'x',
            source: 'cfpm_auto',
            decision: 'rejected',
            reason: 'no_such_reason' as 'too_short',
          },
        ],
      }),
    ).toThrow(/Invalid memory refresh/);
    expect(store.memory.facts(sid).map((f) => f.id)).toEqual(['a']);
    expect(() => store.memory.refresh(sid, { facts: [autoFact('other', 'c', '/c')], candidates: [] })).toThrow(
      /belongs to session other/,
    );
  });

  it("an automatic fact the user rewrites becomes the user's; pinning it alone does not", () => {
    const { store, sid } = setup();
    store.memory.refresh(sid, { facts: [autoFact(sid, 'a1', '/srv/app/config.yml')], candidates: [] });
    const auto = store.memory.facts(sid)[0]!;
    expect(auto).toMatchObject({ source: 'cfpm_auto', confidence: 0.7 });
    const pinned = store.memory.upsertFact(sid, {
      id: auto.id,
      category: auto.category,
      content: auto.content,
      pinned: true,
    });
    expect(pinned).toMatchObject({ source: 'cfpm_auto', confidence: 0.7, pinned: true });
    const rewritten = store.memory.upsertFact(sid, {
      id: auto.id,
      category: auto.category,
      content: '/srv/app/config.yaml',
    });
    expect(rewritten).toMatchObject({ source: 'user', confidence: 1, content: '/srv/app/config.yaml', pinned: true });
    expect(store.memory.facts(sid)).toEqual([rewritten]);
  });

  it('logs every user edit with before and after', () => {
    const { store, sid } = setup();
    const created = store.memory.upsertFact(sid, { category: 'note', content: 'use pnpm' }, 'user');
    expect(created).toMatchObject({ source: 'user', confidence: 1, status: 'active', pinned: false });
    const edited = store.memory.upsertFact(sid, {
      id: created.id,
      category: 'note',
      content: 'use pnpm 10',
      pinned: true,
    });
    const forgotten = store.memory.setStatus(created.id, 'forgotten');
    const log = store.memory.editLog(sid);
    expect(log.map((e) => [e.action, e.before?.content ?? null, e.after.content, e.after.status, e.factId])).toEqual([
      ['create', null, 'use pnpm', 'active', created.id],
      ['edit', 'use pnpm', 'use pnpm 10', 'active', created.id],
      ['status', 'use pnpm 10', 'use pnpm 10', 'forgotten', created.id],
    ]);
    expect(edited.pinned).toBe(true);
    expect(forgotten.pinned).toBe(true);
    expect(store.memory.facts(sid)).toEqual([forgotten]);
    expect(() => store.memory.setStatus('missing', 'active')).toThrow(/does not exist/);
    expect(() => store.memory.upsertFact(sid, { category: 'note', content: '   ' })).toThrow(/Invalid memory fact/);
  });
});

describe('memory on branches', () => {
  const ids = (facts: MemoryFact[]): string[] => facts.map((f) => f.id).sort();
  function forked() {
    const { store, sid } = setup();
    const [, a1] = store.messages.append(sid, [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
    ]);
    // Shared by both branches: learned before the fork.
    store.memory.refresh(sid, { facts: [autoFact(sid, 'shared', '/shared.txt')], candidates: [] });
    const [q2] = store.messages.append(sid, [{ role: 'user', content: 'q2 on A' }]);
    const onA = store.memory.refresh(sid, {
      facts: [...store.memory.facts(sid), autoFact(sid, 'a', '/branch-a.txt')],
      candidates: [
        {
          category: 'artifact',
          content: '/branch-a.txt',
          source: 'cfpm_auto',
          decision: 'accepted',
          reason: 'accepted',
        },
      ],
    });
    expect(ids(onA.facts)).toEqual(['shared', 'a'].sort());
    // The user edits q2: branch B starts under a1.
    const [q2b] = store.messages.append(sid, [{ role: 'user', content: 'q2 on B' }], { parentId: a1!.id });
    return { store, sid, q2: q2!, q2b: q2b! };
  }

  it("lists the active branch's auto facts and candidates, and switching back brings the other branch's", () => {
    const { store, sid, q2, q2b } = forked();
    const user = store.memory.upsertFact(sid, { category: 'goal', content: 'ship it' });
    expect(ids(store.memory.facts(sid))).toEqual(['shared', user.id].sort());
    expect(store.memory.candidates(sid)).toEqual([]);
    store.memory.refresh(sid, {
      facts: [...store.memory.facts(sid), autoFact(sid, 'b', '/branch-b.txt')],
      candidates: [
        {
          category: 'artifact',
          content: '/branch-b.txt',
          source: 'cfpm_auto',
          decision: 'accepted',
          reason: 'accepted',
        },
      ],
    });
    expect(ids(store.memory.facts(sid))).toEqual(['shared', user.id, 'b'].sort());
    expect(store.memory.candidates(sid).map((c) => c.content)).toEqual(['/branch-b.txt']);
    expect(ids(store.memory.facts(sid, { allBranches: true }))).toEqual(['shared', 'a', user.id, 'b'].sort());

    store.messages.switchTo(sid, q2.id);
    expect(ids(store.memory.facts(sid))).toEqual(['shared', 'a', user.id].sort());
    expect(store.memory.candidates(sid).map((c) => c.content)).toEqual(['/branch-a.txt']);
    // A pinned fact is the user's: every branch sees it.
    store.memory.setStatus('a', 'active', true);
    store.messages.switchTo(sid, q2b.id);
    expect(ids(store.memory.facts(sid))).toEqual(['shared', 'a', user.id, 'b'].sort());
  });

  it("a refresh on one branch never deletes, trims or alters another branch's facts", () => {
    const { store, sid, q2 } = forked();
    // Branch B's engine list: 'a' (never B's) is missing, and B retires the shared fact.
    const result = store.memory.refresh(sid, {
      facts: [
        autoFact(sid, 'b', '/branch-b.txt'),
        // A stale list that still carries A's fact must not write into it either.
        autoFact(sid, 'a', '/rewritten-from-b', { evidenceCount: 9 }),
      ],
      candidates: [],
    });
    expect(ids(result.facts)).toEqual(['b']);
    for (let i = 0; i < MEMORY_CAPS.autoFacts + 5; i++) {
      store.memory.refresh(sid, {
        facts: [...store.memory.facts(sid), autoFact(sid, `b${i}`, `/b/${i}`)],
        candidates: [],
      });
    }
    expect(store.memory.facts(sid)).toHaveLength(MEMORY_CAPS.autoFacts);
    store.messages.switchTo(sid, q2.id);
    // The cap trimmed B's oldest, never A's; what B retired is still A's.
    expect(store.memory.facts(sid).map((f) => [f.id, f.content, f.evidenceCount])).toEqual([
      ['shared', '/shared.txt', 1],
      ['a', '/branch-a.txt', 1],
    ]);
  });

  it('a fact learned before the fork is changed or dropped on one branch only (copy on write)', () => {
    const { store, sid, q2 } = forked();
    store.memory.refresh(sid, {
      facts: [...store.memory.facts(sid), autoFact(sid, 'b', '/branch-b.txt')],
      candidates: [],
    });
    // On B the engine sees 'shared' again (new evidence) and keeps its own 'b'.
    const result = store.memory.refresh(sid, {
      facts: [
        autoFact(sid, 'shared', '/shared.txt', { evidenceCount: 2, confidence: 0.9 }),
        autoFact(sid, 'b', '/branch-b.txt'),
      ],
      candidates: [],
    });
    const copy = result.facts.find((f) => f.content === '/shared.txt')!;
    expect(copy).toMatchObject({ evidenceCount: 2, confidence: 0.9 });
    expect(copy.id).not.toBe('shared');
    // Dropped on B (copy included): B holds only its own fact; the original is not back.
    store.memory.refresh(sid, { facts: [autoFact(sid, 'b', '/branch-b.txt')], candidates: [] });
    expect(ids(store.memory.facts(sid))).toEqual(['b']);
    // Branch A still holds the fact exactly as it was learned.
    store.messages.switchTo(sid, q2.id);
    expect(store.memory.facts(sid).map((f) => [f.id, f.evidenceCount])).toEqual([
      ['shared', 1],
      ['a', 1],
    ]);
  });

  it('facts without an anchor (from before branches) stay session-wide', () => {
    const { store, sid } = forked();
    // As migration 8 leaves the rows it finds: no anchor.
    const raw = new Database(join(tmp.dir(), 'threadline.db'));
    raw.prepare("UPDATE memory_facts SET anchor_id = NULL WHERE id = 'a'").run();
    raw.close();
    expect(ids(store.memory.facts(sid))).toEqual(['shared', 'a'].sort());
  });
});
