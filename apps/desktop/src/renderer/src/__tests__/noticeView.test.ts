import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '@threadline/protocol';
import { buildRows } from '../lib/transcript';
import { visibleRows } from '../lib/noticeView';
import { msg } from './fixtures';

const USER_ONLY = { user: true, agent: false };
const runtime = (net: [number, number, number], facts: number, accepted = 1) =>
  msg({
    role: 'user',
    kind: 'runtime_notice',
    visibility: USER_ONLY,
    content: `[CFPM_RUNTIME_V1] ${JSON.stringify({
      version: 'v1',
      verbosity: 'debug',
      reason: 'turn',
      mode: accepted > 0 ? 'merge' : 'noop',
      acceptedCount: accepted,
      rejectedCount: 0,
      prunedCount: 0,
      factCount: facts,
      rejectedReasonBreakdown: {},
      added: net[0],
      updated: net[1],
      retired: net[2],
    })}`,
  });
const gate = () =>
  msg({
    role: 'user',
    kind: 'gate_notice',
    visibility: USER_ONLY,
    content: `[CFPM_TOOL_GATE_V1] ${JSON.stringify({
      version: 'v1',
      verbosity: 'debug',
      action: 'rewrite_known_folder_probe',
      tool: 'shell',
      target: 'Desktop',
      path: '/home/u/Desktop',
      originalCommand: 'ls ~/Desktop',
      rewrittenCommand: 'ls /home/u/Desktop',
    })}`,
  });
const compactionNotice = (type: string) =>
  msg({
    role: 'user',
    kind: 'runtime_notice',
    visibility: USER_ONLY,
    content: `[THREADLINE_COMPACTION_V1] {"version":"v1","type":"${type}"}`,
  });

/** Three turns: memory changes (two refreshes), no net change (evidence only), a gate rewrite. */
function session(): StoredMessage[] {
  return [
    msg({ role: 'user', content: 'turn 1' }),
    runtime([1, 0, 0], 5),
    msg({ role: 'assistant', content: 'a1' }),
    runtime([1, 0, 1], 5),
    msg({ role: 'user', content: 'turn 2' }),
    runtime([0, 0, 0], 5),
    msg({ role: 'assistant', content: 'a2' }),
    runtime([0, 0, 0], 5),
    msg({ role: 'user', content: 'turn 3' }),
    gate(),
    runtime([0, 0, 0], 5, 0),
    compactionNotice('auto_compacting'),
    compactionNotice('compacted'),
    compactionNotice('nothing_to_compact'),
  ];
}

const kinds = (rows: ReturnType<typeof visibleRows>) =>
  rows.filter((r) => r.kind === 'notice').map((r) => (r.kind === 'notice' && r.tally ? 'tally' : r.msg.kind));

describe('visibleRows: visibility is a view of the record', () => {
  const rows = buildRows(session(), []);

  it('brief: one chip per turn with a net change, summed; a gate chip per rewrite', () => {
    const out = visibleRows(rows, 'brief', 'brief');
    expect(kinds(out)).toEqual(['tally', 'gate_notice', 'runtime_notice']);
    const tally = out.find((r) => r.kind === 'notice' && r.tally);
    expect(tally?.kind === 'notice' && tally.tally).toEqual({ added: 2, updated: 0, retired: 1, facts: 5 });
    // Where the turn's last refresh was: after the answer.
    const i = out.indexOf(tally!);
    expect(out[i - 1]?.kind).toBe('assistant');
  });

  it('off: no memory or gate chips; debug: every notice but repeats; the same rows, back and forth', () => {
    for (const level of ['off', 'debug', 'brief', 'off', 'debug'] as const) {
      const out = visibleRows(rows, level, level);
      if (level === 'off') expect(kinds(out)).toEqual(['runtime_notice']); // nothing_to_compact
      // Five runtime notices stored; turn 2's second refresh repeats its first (4), plus nothing_to_compact.
      if (level === 'debug') expect(kinds(out).filter((k) => k === 'runtime_notice')).toHaveLength(5);
      if (level === 'brief') expect(kinds(out)).toHaveLength(3);
    }
  });

  it('debug shows each refresh that changed something and leaves out one that repeats the one before', () => {
    const rows2 = buildRows(
      [
        msg({ role: 'user', content: 'go' }),
        runtime([0, 0, 0], 3, 0),
        runtime([0, 0, 0], 3, 0),
        runtime([0, 0, 0], 3, 0),
        runtime([1, 0, 0], 4),
        runtime([0, 0, 0], 4, 0),
      ],
      [],
    );
    const shown = visibleRows(rows2, 'debug', 'debug').filter((r) => r.kind === 'notice');
    expect(shown.map((r) => (r.kind === 'notice' ? JSON.parse(r.msg.content!.slice(18)).factCount : 0))).toEqual([
      3, 4, 4,
    ]);
  });

  it('the gate follows its own level', () => {
    expect(kinds(visibleRows(rows, 'off', 'brief'))).toEqual(['gate_notice', 'runtime_notice']);
    expect(kinds(visibleRows(rows, 'debug', 'off'))).not.toContain('gate_notice');
  });

  it('started/finished compaction notices of older sessions are never chips: the divider says it', () => {
    for (const level of ['off', 'brief', 'debug'] as const) {
      const texts = visibleRows(rows, level, level).map((r) => (r.kind === 'notice' ? (r.msg.content ?? '') : ''));
      expect(texts.some((t) => t.includes('"compacted"') || t.includes('auto_compacting'))).toBe(false);
    }
  });
});
