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
    expect(out[4]).toEqual({ role: 'tool', content: 'aborted', tool_call_id: 'b' });
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
});
