import { describe, expect, it } from 'vitest';
import type { CompactionRecord, StoredMessage } from '@threadline/protocol';
import { buildView, MemoryTokenCache, pairViolations } from '../..';

let seq = 0;
function msg(p: Partial<StoredMessage> & Pick<StoredMessage, 'role'>): StoredMessage {
  const s = seq++;
  return {
    id: `m${s}`,
    sessionId: 's',
    seq: s,
    createdAt: 0,
    content: null,
    kind: 'normal',
    visibility: { user: true, agent: true },
    tokens: null,
    ...p,
  };
}
function record(p: Partial<CompactionRecord> & Pick<CompactionRecord, 'id'>): CompactionRecord {
  return {
    sessionId: 's',
    strategy: 'legacy_segmented',
    trigger: 'manual',
    steps: [],
    hiddenIds: [],
    insertedIds: [],
    tokensBefore: 0,
    tokensAfter: 0,
    summary: null,
    instructions: null,
    afterSeq: 0,
    active: true,
    createdAt: 0,
    undoneAt: null,
    ...p,
  };
}

seq = 0;
const history: StoredMessage[] = [
  msg({ role: 'system', content: 'You are a helper.' }),
  msg({ role: 'user', content: 'Fix the bug in app.py' }),
  msg({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shell', arguments: '{"command":"cat app.py"}' } }],
  }),
  msg({ role: 'tool', content: 'print(1)', tool_call_id: 'c1' }),
  msg({ role: 'assistant', content: 'Fixed.' }),
  msg({
    role: 'user',
    content: '[CFPM_RUNTIME_V1] {}',
    kind: 'runtime_notice',
    visibility: { user: true, agent: false },
  }),
  msg({ role: 'user', content: 'Thanks, now add tests' }),
];
// What a compaction "cmp1" hid and appended (seq 7, 8) anchored after seq 4.
const summary = msg({
  role: 'user',
  content: 'SUMMARY',
  kind: 'summary',
  visibility: { user: false, agent: true },
  meta: { compactionId: 'cmp1', anchorSeq: 4, anchorOrder: 0 },
});
const cont = msg({
  role: 'user',
  content: 'CONTINUE',
  kind: 'continuation',
  visibility: { user: false, agent: true },
  meta: { compactionId: 'cmp1', anchorSeq: 4, anchorOrder: 1 },
});
const all = [...history, summary, cont];

describe('buildView', () => {
  it('without compactions: every agent-visible message in seq order, notices dropped', () => {
    const v = buildView({ history: all, model: 'gpt-4o', tokenCache: new MemoryTokenCache() });
    expect(v.entries.map((e) => e.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm6']);
  });

  it('hides what an active compaction hid and places its inserts at their anchor', () => {
    const c = record({ id: 'cmp1', hiddenIds: ['m1', 'm2', 'm3', 'm4'], insertedIds: [summary.id, cont.id] });
    const v = buildView({ history: all, compactions: [c], model: 'gpt-4o' });
    expect(v.entries.map((e) => e.id)).toEqual(['m0', summary.id, cont.id, 'm6']);
    expect(v.breakdown.summaries).toBeGreaterThan(0);
  });

  it('a short history under compactions that hid more ids than it has: only what they hid of it goes', () => {
    const tail = [all[1]!, all[4]!, all[6]!];
    const many = Array.from({ length: 50 }, (_, k) => `old${k}`);
    const c = record({ id: 'cmp1', hiddenIds: [...many, 'm4'] });
    const undone = record({ id: 'cmp0', hiddenIds: [...many, 'm1'], active: false, undoneAt: 5 });
    const v = buildView({ history: tail, compactions: [undone, c], model: 'gpt-4o' });
    expect(v.entries.map((e) => e.id)).toEqual(['m1', 'm6']);
  });

  it('an inactive (undone) compaction hides nothing and its inserts disappear', () => {
    const c = record({ id: 'cmp1', hiddenIds: ['m1', 'm2', 'm3', 'm4'], active: false, undoneAt: 5 });
    const v = buildView({ history: all, compactions: [c], model: 'gpt-4o' });
    expect(v.entries.map((e) => e.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm6']);
  });

  it('adds system prompt and memory block, and the breakdown adds up to the total', () => {
    const v = buildView({
      history: all,
      model: 'gpt-4o',
      systemPrompt: 'SYS',
      memoryBlock: '[CFPM_RUNTIME_MEMORY_V1] data',
    });
    expect(v.messages[0]).toEqual({ role: 'system', content: 'SYS' });
    expect(v.messages[1]!.role).toBe('system');
    expect(v.messages[2]).toEqual({ role: 'user', content: '[CFPM_RUNTIME_MEMORY_V1] data' });
    const b = v.breakdown;
    expect(b.system + b.memory + b.summaries + b.messages + b.toolOutputs).toBe(v.tokens);
    expect(b.memory).toBeGreaterThan(0);
    expect(b.toolOutputs).toBeGreaterThan(0);
    expect(v.tokens).toBe(v.entries.reduce((n, e) => n + e.tokens, 0) + 3);
  });

  it('normalizes: a hidden result gets a synthetic aborted one, a hidden call drops its result', () => {
    const hideResult = buildView({
      history: all,
      compactions: [record({ id: 'x', hiddenIds: ['m3'] })],
      model: 'gpt-4o',
    });
    expect(hideResult.messages[3]).toEqual({ role: 'tool', content: 'aborted', tool_call_id: 'c1' });
    expect(hideResult.entries[3]!.kind).toBe('synthetic_result');
    const hideCall = buildView({
      history: all,
      compactions: [record({ id: 'x', hiddenIds: ['m2'] })],
      model: 'gpt-4o',
    });
    expect(hideCall.messages.some((m) => m.role === 'tool')).toBe(false);
    expect(pairViolations(hideCall.messages)).toEqual({ unansweredCalls: [], orphanResults: [] });
  });

  it('uses the persisted per-message count instead of recounting', () => {
    const withCounts = all.map((m) => ({ ...m, tokens: 1000 }));
    const v = buildView({ history: withCounts, model: 'gpt-4o' });
    expect(v.tokens).toBe(6 * 1000 + 3);
  });
});
