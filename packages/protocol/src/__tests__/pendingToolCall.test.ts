import { describe, expect, it } from 'vitest';
import { PendingToolCallSchema, pendingToolCall } from '../index';

const toolCall = { id: 'c1', type: 'function' as const, function: { name: 'write_file', arguments: '{"path":"a"}' } };

describe('pendingToolCall', () => {
  it('leaves out the card fields that are null or absent, and waits when it asks', () => {
    const p = pendingToolCall({ toolCall, messageId: 'm1', needsApproval: true, gate: null, diff: undefined });
    expect(p).toEqual({ toolCall, messageId: 'm1', needsApproval: true, status: 'waiting' });
    expect(Object.keys(p)).not.toContain('gate');
    expect(PendingToolCallSchema.parse(p)).toEqual(p);
  });

  it('runs a call that does not ask, and keeps the fields that are set', () => {
    const access = { path: '/etc/hosts', zone: 'outside' as const };
    const p = pendingToolCall({ toolCall, messageId: 'm1', needsApproval: false, access });
    expect(p).toEqual({ toolCall, messageId: 'm1', needsApproval: false, status: 'running', access });
    expect(pendingToolCall({ ...p, status: 'running', needsApproval: true }).status).toBe('running');
    expect(PendingToolCallSchema.parse(p)).toEqual(p);
  });
});
