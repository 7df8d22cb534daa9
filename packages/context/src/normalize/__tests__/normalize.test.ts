import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@threadline/protocol';
import { ensureCallOutputsPresent, normalizeView, pairViolations, removeOrphanOutputs } from '..';

const call = (id: string, name = 'shell') => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
const conv: ChatMessage[] = [
  { role: 'user', content: 'go' },
  { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
  { role: 'tool', content: 'A', tool_call_id: 'a' },
  { role: 'tool', content: 'orphan', tool_call_id: 'zzz' },
  { role: 'user', content: 'next' },
  { role: 'assistant', content: null, tool_calls: [call('c')] },
];

describe('normalization', () => {
  it('adds a synthetic "aborted" result right after the call\'s existing results', () => {
    const out = ensureCallOutputsPresent(conv);
    expect(out[3]).toEqual({ role: 'tool', content: 'aborted', tool_call_id: 'b' });
    expect(out.at(-1)).toEqual({ role: 'tool', content: 'aborted', tool_call_id: 'c' });
  });

  it('drops results without a call', () => {
    const out = removeOrphanOutputs(conv);
    expect(out.some((m) => m.tool_call_id === 'zzz')).toBe(false);
    expect(out).toHaveLength(conv.length - 1);
  });

  it('normalizeView leaves no violation and is idempotent', () => {
    expect(pairViolations(conv).orphanResults).toEqual(['zzz']);
    expect(pairViolations(conv).unansweredCalls.sort()).toEqual(['b', 'c']);
    const once = normalizeView(conv);
    expect(pairViolations(once)).toEqual({ unansweredCalls: [], orphanResults: [] });
    expect(normalizeView(once)).toEqual(once);
  });

  it('moves a result that another message separates from its call back to it, and drops a second one', () => {
    const split: ChatMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', content: 'A', tool_call_id: 'a' },
      { role: 'user', content: 'a note in between' },
      { role: 'tool', content: 'B', tool_call_id: 'b' },
      { role: 'tool', content: 'A again', tool_call_id: 'a' },
    ];
    // Strictly read, b is unanswered (its result comes after another message) and it is an orphan there.
    expect(pairViolations(split)).toEqual({ unansweredCalls: ['b'], orphanResults: ['b', 'a'] });
    const out = normalizeView(split);
    expect(out.map((m) => m.content)).toEqual(['go', null, 'A', 'B', 'a note in between']);
    expect(pairViolations(out)).toEqual({ unansweredCalls: [], orphanResults: [] });
    expect(normalizeView(out)).toEqual(out);
  });
});
