import { beforeEach, describe, expect, it } from 'vitest';
import { createAppStore, connectEvents } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { msg, usage } from './fixtures';

const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

describe('store fed by events', () => {
  let store: ReturnType<typeof createAppStore>;
  let fake: ReturnType<typeof createFakeBridge>;

  beforeEach(async () => {
    fake = createFakeBridge({
      'messages.list': () => [msg({ id: 'u1', seq: 1, role: 'user', content: 'hi' })],
      'context.usage': () => usage(),
      'compaction.list': () => [],
      'chat.send': () => ({ accepted: true, userMessageId: 'u2' }),
      'chat.retry': () => ({ accepted: true, userMessageId: 'u1' }),
    });
    setBridge(fake.bridge);
    store = createAppStore();
    connectEvents(store);
    await store.getState().selectSession('s1');
  });

  it('appends deltas to a streaming message and replaces it on complete', async () => {
    fake.emit({ type: 'message.delta', sessionId: 's1', messageId: 'a1', delta: 'Hel' });
    fake.emit({ type: 'message.delta', sessionId: 's1', messageId: 'a1', delta: 'lo' });
    await tick();
    expect(store.getState().streaming.a1?.text).toBe('Hello');
    expect(store.getState().busy.s1).toBe(true);
    fake.emit({
      type: 'message.complete',
      sessionId: 's1',
      message: msg({ id: 'a1', seq: 2, role: 'assistant', content: 'Hello!' }),
    });
    expect(store.getState().streaming.a1).toBeUndefined();
    expect(store.getState().messages.s1?.map((m) => m.content)).toEqual(['hi', 'Hello!']);
  });

  it('tracks a tool call from approval request to result', () => {
    const call = { id: 'c1', type: 'function' as const, function: { name: 'shell', arguments: '{}' } };
    fake.emit({ type: 'tool.requested', sessionId: 's1', toolCall: call, messageId: 'a1', needsApproval: true });
    expect(store.getState().tools.c1?.status).toBe('waiting');
    const result = msg({ id: 't1', seq: 3, role: 'tool', content: 'ok', tool_call_id: 'c1' });
    fake.emit({
      type: 'tool.finished',
      sessionId: 's1',
      toolCallId: 'c1',
      status: 'ok',
      durationMs: 12,
      message: result,
    });
    expect(store.getState().tools.c1).toMatchObject({ status: 'ok', durationMs: 12 });
    // Finished calls are no longer in flight: they keep no call/step for the pending list.
    expect(store.getState().tools.c1?.messageId).toBeUndefined();
    expect(store.getState().messages.s1?.at(-1)?.id).toBe('t1');
  });

  it('approving calls chat.approve and marks the call running', async () => {
    await store.getState().approve('s1', 'c9', 'approve');
    expect(fake.calls.at(-1)).toEqual({
      route: 'chat.approve',
      input: { sessionId: 's1', toolCallId: 'c9', decision: 'approve' },
    });
    expect(store.getState().tools.c9?.status).toBe('running');
  });

  it('a finished turn clears streaming state; an error shows inline with the text to retry', async () => {
    fake.emit({ type: 'message.delta', sessionId: 's1', messageId: 'a5', delta: 'partial' });
    fake.emit({
      type: 'session.updated',
      sessionId: 's1',
      session: { id: 's1', title: 't', createdAt: 1, updatedAt: 3, messageCount: 2 },
      busy: false,
    });
    expect(store.getState().streaming.a5).toBeUndefined();
    expect(store.getState().busy.s1).toBe(false);
    fake.emit({ type: 'error', sessionId: 's1', code: 'provider_error', message: 'rate limited' });
    expect(store.getState().errors.s1).toEqual({
      code: 'provider_error',
      message: 'rate limited',
      retryText: 'hi',
      stored: true,
    });
    // The request is stored: Retry answers that same message again, it never sends a copy.
    await store.getState().retry('s1');
    expect(fake.calls.find((c) => c.route === 'chat.retry')?.input).toEqual({ sessionId: 's1' });
    expect(fake.calls.some((c) => c.route === 'chat.send')).toBe(false);
  });

  it('usage events update the meter data; a compaction notice refreshes compactions', async () => {
    fake.emit({ type: 'usage', sessionId: 's1', usage: usage({ percent: 91 }) });
    expect(store.getState().usage.s1?.percent).toBe(91);
    const before = fake.calls.filter((c) => c.route === 'compaction.list').length;
    fake.emit({
      type: 'notice',
      sessionId: 's1',
      message: msg({
        id: 'n1',
        seq: 9,
        role: 'assistant',
        kind: 'runtime_notice',
        content: '[THREADLINE_COMPACTION_V1] {"version":"v1","type":"compacted"}',
      }),
    });
    await tick();
    expect(fake.calls.filter((c) => c.route === 'compaction.list').length).toBe(before + 1);
  });
});
