import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProjectEvidence } from '@threadline/protocol';
import { PROJECT_CAPS, type ProposedFact } from '../projectTypes';
import { steppingClock, useTempDir } from './helpers';

const tmp = useTempDir();

const ev = (n: number, sessionId = 's1'): ProjectEvidence => ({
  sessionId,
  messageId: `m${n}`,
  toolCallId: `c${n}`,
  verifiedBy: `$ pnpm test → exit 0`,
  at: 1000 + n,
});
const proposed = (p: Partial<ProposedFact> & Pick<ProposedFact, 'kind' | 'content'>): ProposedFact => ({
  detail: null,
  source: 'session',
  evidence: ev(1),
  fingerprint: null,
  accept: false,
  ...p,
});

describe('project memory (store)', () => {
  it('a new fact is a candidate; the same fact again gains evidence, once per call, at most five', () => {
    const store = tmp.open({ now: steppingClock() });
    const [cand] = store.projectMemory.propose('/p', [
      proposed({ kind: 'command', content: 'pnpm test', detail: 'test' }),
    ]);
    expect(cand).toMatchObject({
      status: 'candidate',
      kind: 'command',
      content: 'pnpm test',
      detail: 'test',
      evidence: [ev(1)],
    });
    store.projectMemory.propose('/p', [proposed({ kind: 'command', content: 'pnpm  test', evidence: ev(1) })]);
    expect(store.projectMemory.get(cand!.id)!.evidence).toHaveLength(1);
    for (let i = 2; i <= 8; i++)
      store.projectMemory.propose('/p', [proposed({ kind: 'command', content: 'pnpm test', evidence: ev(i) })]);
    const after = store.projectMemory.get(cand!.id)!;
    expect(after.evidence.map((e) => e.messageId)).toEqual(['m8', 'm7', 'm6', 'm5', 'm4']);
    expect(after.verifiedAt).toBe(1008);
    // Another project is another memory.
    expect(store.projectMemory.facts('/other')).toEqual([]);
    expect(store.projectMemory.facts('/p')).toHaveLength(1);
  });

  it('what the user rejected or forgot is not proposed again; accepting a stale fact keeps it as it is now', () => {
    const store = tmp.open({ now: steppingClock() });
    const [a, b] = store.projectMemory.propose('/p', [
      proposed({ kind: 'path', content: './src/app.ts', fingerprint: { type: 'file', size: 3, mtimeMs: 5 } }),
      proposed({ kind: 'instruction', content: 'Always use pnpm.', source: 'session' }),
    ]);
    expect(a!.content).toBe('./src/app.ts');
    store.projectMemory.decide([b!.id], 'reject');
    expect(store.projectMemory.propose('/p', [proposed({ kind: 'instruction', content: 'always use pnpm' })])).toEqual(
      [],
    );
    store.projectMemory.decide([a!.id], 'accept');
    store.projectMemory.checked([{ id: a!.id, stale: 'changed' }]);
    expect(store.projectMemory.get(a!.id)!.stale).toBe('changed');
    const [kept] = store.projectMemory.decide(
      [a!.id],
      'accept',
      new Map([[a!.id, { type: 'file', size: 9, mtimeMs: 7 } as const]]),
    );
    expect(kept).toMatchObject({ status: 'accepted', stale: null, fingerprint: { type: 'file', size: 9, mtimeMs: 7 } });
    store.projectMemory.setStatus(a!.id, 'forgotten');
    expect(store.projectMemory.propose('/p', [proposed({ kind: 'path', content: 'src/app.ts' })])).toEqual([]);
  });

  it('verifying an accepted fact again clears its stale mark; auto-accept puts a new one straight in', () => {
    const store = tmp.open({ now: steppingClock() });
    const [a] = store.projectMemory.propose('/p', [proposed({ kind: 'command', content: 'make', accept: true })]);
    expect(a!.status).toBe('accepted');
    store.projectMemory.checked([{ id: a!.id, stale: 'expired' }]);
    const [again] = store.projectMemory.propose('/p', [
      proposed({ kind: 'command', content: 'make', evidence: ev(4) }),
    ]);
    expect(again).toMatchObject({ status: 'accepted', stale: null, verifiedAt: 1004 });
    // A check that finds nothing new writes nothing.
    expect(store.projectMemory.checked([{ id: a!.id, stale: null }])).toEqual([]);
  });

  it('a correction supersedes; restoring brings the fact back; an edit may not duplicate another fact', () => {
    const store = tmp.open({ now: steppingClock() });
    const [npm, pnpm] = store.projectMemory.propose('/p', [
      proposed({ kind: 'command', content: 'npm test', accept: true }),
      proposed({ kind: 'command', content: 'pnpm test', accept: true }),
    ]);
    const [s] = store.projectMemory.supersede([npm!.id], pnpm!.id);
    expect(s).toMatchObject({ status: 'superseded', supersededBy: pnpm!.id });
    expect(store.projectMemory.setStatus(npm!.id, 'accepted')).toMatchObject({
      status: 'accepted',
      supersededBy: null,
    });
    expect(() => store.projectMemory.edit(npm!.id, 'pnpm test')).toThrow(/already has this fact/);
    const [c] = store.projectMemory.propose('/p', [proposed({ kind: 'instruction', content: 'use tabs always' })]);
    expect(store.projectMemory.edit(c!.id, 'Always indent with tabs.', true)).toMatchObject({
      status: 'accepted',
      content: 'Always indent with tabs.',
      pinned: true,
    });
    expect(() => store.projectMemory.decide(['nope'], 'accept')).toThrow(/No project fact/);
  });

  it('holds candidates to their cap (the oldest go) and refuses what is not a fact', () => {
    const store = tmp.open({ now: steppingClock() });
    const many = Array.from({ length: PROJECT_CAPS.candidates + 5 }, (_, i) =>
      proposed({ kind: 'path', content: `src/f${i}.ts` }),
    );
    store.projectMemory.propose('/p', many);
    const facts = store.projectMemory.facts('/p');
    expect(facts).toHaveLength(PROJECT_CAPS.candidates);
    expect(facts[0]!.content).toBe('src/f5.ts');
    expect(() => store.projectMemory.propose('/p', [proposed({ kind: 'path', content: '   ' })])).toThrow(
      /Invalid project fact/,
    );
  });

  it('lives in its own table, one row per fact of a project', () => {
    const store = tmp.open();
    store.projectMemory.propose('/p', [proposed({ kind: 'path', content: 'a.ts' })]);
    store.close();
    const db = new Database(join(tmp.dir(), 'threadline.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT project, fact_key, status FROM project_facts').all();
      expect(rows).toEqual([{ project: '/p', fact_key: 'path:a.ts', status: 'candidate' }]);
    } finally {
      db.close();
    }
  });
});
