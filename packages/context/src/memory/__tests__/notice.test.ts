import { parseNotice } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { formatRuntimeNotice, normalizeVisibility } from '../notice';
import type { RefreshResult } from '../types';

const result = (p: Partial<RefreshResult> = {}): RefreshResult => ({
  facts: [],
  candidates: [],
  sessionCandidates: [],
  snapshots: [],
  mode: 'noop',
  reason: 'turn',
  acceptedCount: 0,
  rejectedCount: 0,
  prunedCount: 0,
  factCount: 0,
  rejectedReasonBreakdown: {},
  prunedIds: [],
  net: { added: 0, updated: 0, retired: 0 },
  promotions: [],
  ...p,
});

describe('formatRuntimeNotice', () => {
  const busy = result({
    mode: 'merge',
    acceptedCount: 2,
    rejectedCount: 1,
    factCount: 5,
    rejectedReasonBreakdown: { duplicate: 1 },
  });

  it('off: never', () => {
    expect(formatRuntimeNotice(busy, 'off')).toBeNull();
  });

  it('brief: only when something happened, counts without reasons', () => {
    expect(formatRuntimeNotice(result(), 'brief')).toBeNull();
    expect(formatRuntimeNotice(result({ mode: 'prune' }), 'brief')).not.toBeNull();
    const parsed = parseNotice(formatRuntimeNotice(busy, 'brief'));
    expect(parsed).toEqual({
      type: 'runtime',
      payload: {
        version: 'v1',
        verbosity: 'brief',
        reason: 'turn',
        mode: 'merge',
        acceptedCount: 2,
        rejectedCount: 1,
        prunedCount: 0,
        factCount: 5,
        rejectedReasonBreakdown: {},
        added: 0,
        updated: 0,
        retired: 0,
      },
    });
  });

  it('debug: always, with the reason breakdown', () => {
    expect(formatRuntimeNotice(result(), 'debug')).toMatch(/^\[CFPM_RUNTIME_V1\] \{/);
    const parsed = parseNotice(formatRuntimeNotice(busy, 'verbose'));
    if (parsed?.type !== 'runtime') throw new Error('expected a runtime notice');
    expect(parsed.payload.rejectedReasonBreakdown).toEqual({ duplicate: 1 });
    expect(parsed.payload.verbosity).toBe('debug');
  });
});

describe('normalizeVisibility', () => {
  it.each([
    ['off', 'off'],
    ['none', 'off'],
    ['disable', 'off'],
    ['disabled', 'off'],
    ['0', 'off'],
    [0, 'off'],
    ['brief', 'brief'],
    [' BRIEF ', 'brief'],
    ['debug', 'debug'],
    ['verbose', 'debug'],
    ['full', 'debug'],
    ['2', 'debug'],
    [2, 'debug'],
    ['nonsense', 'brief'],
    [undefined, 'brief'],
  ] as const)('%s → %s', (input, level) => expect(normalizeVisibility(input)).toBe(level));
});

describe('net change in the runtime notice', () => {
  it('carries added / updated / retired, so a view can tell a change from mere evidence', () => {
    const text = formatRuntimeNotice(
      result({ mode: 'merge', acceptedCount: 1, factCount: 5, net: { added: 0, updated: 0, retired: 0 } }),
      'debug',
    );
    const parsed = parseNotice(text);
    expect(parsed?.type).toBe('runtime');
    if (parsed?.type !== 'runtime') return;
    expect(parsed.payload.acceptedCount).toBe(1);
    expect([parsed.payload.added, parsed.payload.updated, parsed.payload.retired]).toEqual([0, 0, 0]);
  });
});
