import { describe, expect, it } from 'vitest';
import type { MemoryCandidate } from '@threadline/protocol';
import { groupRejected } from '../components/MemoryPanel';

const cand = (id: string, content: string, createdAt: number, p: Partial<MemoryCandidate> = {}): MemoryCandidate => ({
  id,
  sessionId: 's1',
  category: 'artifact',
  content,
  source: 'cfpm_auto',
  decision: 'rejected',
  reason: 'artifact_unhelpful',
  createdAt,
  ...p,
});

describe('groupRejected', () => {
  it('shows each rejected candidate once with its count, newest first; accepted ones not at all', () => {
    const rows = groupRejected([
      cand('a', '/tmp', 1),
      cand('b', 'ok.txt', 2, { decision: 'accepted', reason: 'accepted' }),
      cand('c', '/tmp', 3),
      cand('d', 'x', 4, { reason: 'too_short' }),
      cand('e', ' /tmp ', 5),
      cand('f', '/tmp', 6, { reason: 'duplicate' }),
    ]);
    expect(rows.map((r) => [r.c.content.trim(), r.c.reason, r.count])).toEqual([
      ['/tmp', 'duplicate', 1],
      ['/tmp', 'artifact_unhelpful', 3],
      ['x', 'too_short', 1],
    ]);
    expect(rows[1]!.c.id).toBe('e');
  });
});
