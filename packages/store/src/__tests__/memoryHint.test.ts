import { describe, expect, it } from 'vitest';
import type { BranchHint, Store } from '../types';
import { autoFact, steppingClock, useTempDir } from './helpers';

const tmp = useTempDir();

const fact = autoFact;

const candidate = (content: string) => ({
  category: 'note' as const,
  content,
  source: 'cfpm_auto' as const,
  decision: 'rejected' as const,
  reason: 'too_short' as const,
});

/** What a caller holding the branch in memory passes (the agent's session snapshot). */
function hintOf(store: Store, sessionId: string): BranchHint {
  const ids = new Set(store.messages.list(sessionId, { fullOutput: false }).map((m) => m.id));
  return { onPath: (id) => ids.has(id), forkSeq: store.memory.forkSeq(sessionId) };
}

/**
 * A fact learned before a fork, changed on one branch only (copy on write), candidates on both:
 * what each branch sees, refreshed with or without the hint.
 */
function scenario(useHint: boolean) {
  const store = tmp.open({ now: steppingClock() });
  const sid = store.sessions.create('m').id;
  const hint = () => (useHint ? hintOf(store, sid) : undefined);
  const [, a1] = store.messages.append(sid, [
    { role: 'user', content: 'q1' },
    { role: 'assistant', content: 'a1' },
  ]);
  store.memory.refresh(
    sid,
    { facts: [fact(sid, `${sid}-f1`, '/srv/app')], candidates: [candidate('c-before')] },
    hint(),
  );
  const [q2] = store.messages.append(sid, [{ role: 'user', content: 'q2' }]);
  store.memory.refresh(
    sid,
    { facts: [...store.memory.facts(sid), fact(sid, `${sid}-f2`, '/srv/a-only')], candidates: [candidate('c-a')] },
    hint(),
  );
  // The edit of q2: branch B from a1.
  store.messages.append(sid, [{ role: 'user', content: 'q2 edited' }], { parentId: a1!.id });
  const forkSeq = store.memory.forkSeq(sid);
  const changed = store.memory.facts(sid).map((f) => (f.id === `${sid}-f1` ? { ...f, content: '/srv/app2' } : f));
  // What the refresh answers is what its caller keeps as the branch's facts.
  const returned = store.memory
    .refresh(sid, { facts: changed, candidates: [candidate('c-b')] }, hint())
    .facts.map((f) => `${f.content}:${f.status}`);
  const seen = () => ({
    facts: store.memory.facts(sid).map((f) => `${f.content}:${f.status}`),
    candidates: store.memory.candidates(sid, 10, hint()).map((c) => c.content),
  });
  const onB = seen();
  store.messages.switchTo(sid, q2!.id);
  const onA = seen();
  return { returned, onA, onB, forkSeq: forkSeq - a1!.seq, all: store.memory.facts(sid, { allBranches: true }).length };
}

describe('memory refresh with a branch hint', () => {
  it('changes and lists exactly what the walk over the whole branch does', () => {
    const walked = scenario(false);
    const hinted = scenario(true);
    expect(hinted).toEqual(walked);
    // And that is the branch semantics: B's change is a copy, A keeps the fact as it was.
    expect(walked.forkSeq).toBe(0); // the fork is at a1
    expect(walked.onB.facts).toEqual(['/srv/app2:active']);
    expect(walked.returned).toEqual(walked.onB.facts);
    expect(walked.onA.facts).toEqual(['/srv/app:active', '/srv/a-only:active']);
    expect(walked.onB.candidates).toEqual(['c-b', 'c-before']);
    expect(walked.onA.candidates).toEqual(['c-a', 'c-before']);
  });
});
