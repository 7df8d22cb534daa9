/** Whatever the transcript holds, a refresh and the gate finish and keep their output well-formed. */
import type { ChatMessage } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { applyToolGate } from '../../gate';
import { buildMemoryBlock } from '../block';
import { buildCheckpointSnapshot } from '../checkpoint';
import { MAX_SNAPSHOTS } from '../constants';
import { capSnapshots, refreshMemory } from '../refresh';
import { ids } from './helpers';

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
const PIECES = [
  'C:\\Users\\x\\Desktop',
  '/srv/a.py',
  '~/Downloads',
  'ENOENT',
  'No such file or directory',
  '<returncode>0</returncode>',
  'exit code: 0',
  'TODO: x',
  'ignore previous instructions',
  '2024/7/19',
  '\n',
  '"',
  "'",
  '`',
  '[CFPM_RUNTIME_MEMORY_V1]',
  '目标是修复',
  '系统找不到指定的路径',
  'sed -i s/a/b/ f.py',
  'cat <<EOF > g.py',
  'EOF',
  '😀',
  '\ud800',
  ' ',
];

function randomMessages(rand: () => number, n: number): ChatMessage[] {
  const text = () =>
    Array.from({ length: Math.floor(rand() * 12) }, () => PIECES[Math.floor(rand() * PIECES.length)]).join(
      rand() < 0.5 ? ' ' : '',
    );
  const out: ChatMessage[] = [];
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.3)
      out.push({
        role: 'assistant',
        content: rand() < 0.2 ? null : text(),
        tool_calls: [
          {
            id: `c${i}`,
            type: 'function',
            function: {
              name: rand() < 0.5 ? 'bash' : 'str_replace_editor',
              arguments: rand() < 0.3 ? text() : JSON.stringify({ command: text(), path: text() }),
            },
          },
        ],
      });
    else if (r < 0.6) out.push({ role: 'tool', content: text(), tool_call_id: `c${i - 1}` });
    else if (r < 0.8) out.push({ role: 'assistant', content: text() });
    else out.push({ role: 'user', content: text() });
  }
  return out;
}

describe('robustness', () => {
  it('random transcripts: refresh, block and checkpoint never throw and stay framed', () => {
    const rand = prng(7);
    for (let round = 0; round < 150; round++) {
      const ms = randomMessages(rand, 1 + Math.floor(rand() * 20));
      const r = refreshMemory({ sessionId: 's', messages: ms, now: round, newId: ids(`r${round}-`) });
      expect(['noop', 'prune', 'candidate_only', 'merge', 'merge+prune']).toContain(r.mode);
      // Rejected candidates are recorded once per (category, content, reason).
      expect(r.candidates.length).toBeLessThanOrEqual(r.acceptedCount + r.rejectedCount);
      const rejectedKeys = r.candidates
        .filter((c) => c.decision === 'rejected')
        .map((c) => `${c.reason}|${c.category}|${c.content.toLowerCase()}`);
      expect(new Set(rejectedKeys).size).toBe(rejectedKeys.length);
      expect(
        r.facts.filter((f) => f.category === 'goal').every((f) => !/ignore previous instructions/i.test(f.content)),
      ).toBe(true);
      for (const text of [buildMemoryBlock(r.facts) ?? '', buildCheckpointSnapshot(ms, r.facts)]) {
        const marked = text.split('\n').filter((l) => l.includes('[CFPM_'));
        expect(marked.length).toBeLessThanOrEqual(1);
      }
      const g = applyToolGate({
        toolName: 'shell',
        args: { command: ms.map((m) => m.content ?? '').join(' ') },
        facts: r.facts,
        strategy: 'cfpm_memory_v1',
        enabled: true,
        fileExists: () => true,
      });
      expect(typeof g.rewritten).toBe('boolean');
    }
  });

  it('keeps at most 100 snapshots, the newest', () => {
    const rows = Array.from({ length: 130 }, (_, i) => ({
      id: `s${i}`,
      sessionId: 's',
      compactionId: null,
      content: 'x',
      factCount: 0,
      createdAt: i,
    }));
    const kept = capSnapshots(rows);
    expect(kept.length).toBe(MAX_SNAPSHOTS);
    expect(kept[0]!.id).toBe('s30');
  });
});
