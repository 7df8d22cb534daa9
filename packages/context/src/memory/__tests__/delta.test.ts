import type { MemoryFact } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { memoryDelta, refreshMemory } from '../refresh';
import { fact as makeFact } from './helpers';

const fact = (id: string, content: string, status: MemoryFact['status'] = 'active'): MemoryFact =>
  makeFact({ id, sessionId: 's', category: 'artifact', content, status });

describe('memoryDelta', () => {
  it('counts facts that appeared, changed and left the active set', () => {
    const before = [fact('a', 'src/a.ts'), fact('b', 'src/b.ts'), fact('c', 'src/c.ts')];
    const after = [
      { ...fact('a', 'src/a.ts'), evidenceCount: 4 }, // more evidence: no change
      fact('b', 'src/b2.ts'), // content changed
      fact('c', 'src/c.ts', 'stale'), // retired
      fact('d', 'src/d.ts'), // new
    ];
    expect(memoryDelta(before, after)).toEqual({ added: 1, updated: 1, retired: 1 });
  });

  it('a fact seen again is accepted but changes nothing', () => {
    let n = 0;
    const newId = () => `id${++n}`;
    const msgs = [{ role: 'user' as const, content: 'The report is at build/report.txt, please keep it.' }];
    const first = refreshMemory({ sessionId: 's', messages: msgs, now: 1, newId, recent: 1 });
    expect(first.net.added).toBe(first.factCount);
    const again = refreshMemory({ sessionId: 's', messages: msgs, facts: first.facts, now: 2, newId, recent: 1 });
    expect(again.acceptedCount).toBeGreaterThan(0);
    expect(again.net).toEqual({ added: 0, updated: 0, retired: 0 });
  });
});
