import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createAppStore, connectEvents } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import type { CompactionRecord } from '@threadline/protocol';
import { compaction, msg, usage } from './fixtures';

describe('store fed by events', () => {
  let store: ReturnType<typeof createAppStore>;
  let fake: ReturnType<typeof createFakeBridge>;
  /** The session's compactions as the runtime keeps them. */
  let stored: CompactionRecord[] = [];

  beforeEach(async () => {
    stored = [];
    fake = createFakeBridge({
      'messages.list': () => [msg({ id: 'u1', seq: 1, role: 'user', content: 'hi' })],
      'context.usage': () => usage(),
      'compaction.list': () => stored,
      'chat.send': () => ({ accepted: true, userMessageId: 'u2' }),
      'chat.retry': () => ({ accepted: true, userMessageId: 'u1' }),
      // As the runtime does: the notice and the undone event, then the answer.
      'compaction.undo': () => {
        const undone = compaction({ id: 'c9', active: false, undoneAt: 2 });
        stored = [undone];
        fake.emit({
          type: 'notice',
          sessionId: 's1',
          message: msg({ id: 'n1', seq: 5, role: 'user', kind: 'runtime_notice' }),
        });
        fake.emit({ type: 'compaction.undone', sessionId: 's1', compaction: undone });
        return { undone };
      },
    });
    setBridge(fake.bridge);
    store = createAppStore();
    connectEvents(store);
    await store.getState().selectSession('s1');
  });

  it('appends deltas to a streaming message and replaces it on complete', async () => {
    fake.emit({ type: 'message.delta', sessionId: 's1', messageId: 'a1', delta: 'Hel' });
    fake.emit({ type: 'message.delta', sessionId: 's1', messageId: 'a1', delta: 'lo' });
    // Deltas land together on the next frame.
    await vi.waitFor(() => expect(store.getState().streaming.a1?.text).toBe('Hello'));
    expect(store.getState().bySession.s1?.busy).toBe(true);
    fake.emit({
      type: 'message.complete',
      sessionId: 's1',
      message: msg({ id: 'a1', seq: 2, role: 'assistant', content: 'Hello!' }),
    });
    expect(store.getState().streaming.a1).toBeUndefined();
    expect(store.getState().bySession.s1?.messages?.map((m) => m.content)).toEqual(['hi', 'Hello!']);
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
    expect(store.getState().bySession.s1?.messages?.at(-1)?.id).toBe('t1');
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
      session: {
        id: 's1',
        title: 't',
        createdAt: 1,
        updatedAt: 3,
        messageCount: 2,
        workingFolder: '/home/u/Threadline',
      },
      busy: false,
    });
    expect(store.getState().streaming.a5).toBeUndefined();
    expect(store.getState().bySession.s1?.busy).toBe(false);
    fake.emit({ type: 'error', sessionId: 's1', code: 'provider_error', message: 'rate limited' });
    expect(store.getState().bySession.s1?.error).toEqual({
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

  it('usage events update the meter data; an undone compaction comes back inactive and the context reloads', async () => {
    fake.emit({ type: 'usage', sessionId: 's1', usage: usage({ percent: 91 }) });
    expect(store.getState().bySession.s1?.usage?.percent).toBe(91);
    fake.emit({ type: 'compaction.finished', sessionId: 's1', compaction: compaction({ id: 'c9' }) });
    // The reload it asks for has landed: the runtime's list (empty here) replaced the record.
    await vi.waitFor(() => expect(store.getState().bySession.s1?.compactions).toEqual([]));
    const before = fake.calls.filter((c) => c.route === 'compaction.list').length;
    fake.emit({
      type: 'compaction.undone',
      sessionId: 's1',
      compaction: compaction({ id: 'c9', active: false, undoneAt: 2 }),
    });
    expect(store.getState().bySession.s1?.compactions?.find((c) => c.id === 'c9')?.active).toBe(false);
    await vi.waitFor(() => expect(fake.calls.filter((c) => c.route === 'compaction.list').length).toBe(before + 1));
  });

  it('undoing a compaction fetches each route at most once: what its events name, nothing more (issue 27)', async () => {
    store.getState().patchSession('s1', { compactions: [compaction({ id: 'c9' })] });
    const before = fake.calls.length;
    await store.getState().undoCompaction('s1');
    await vi.waitFor(() => expect(fake.calls.slice(before).some((c) => c.route === 'compaction.list')).toBe(true));
    const routes = fake.calls.slice(before).map((c) => c.route);
    expect(routes.filter((r) => r === 'compaction.undo')).toHaveLength(1);
    expect(routes).not.toContain('messages.list');
    expect(new Set(routes).size).toBe(routes.length);
    // What changed is shown from the events: the record inactive, the notice in the list.
    expect(store.getState().bySession.s1?.compactions?.map((c) => c.active)).toEqual([false]);
    expect(store.getState().bySession.s1?.messages?.map((m) => m.id)).toEqual(['u1', 'n1']);
  });

  it('a compaction is shown in place from started to finished: progress, then the record', async () => {
    fake.emit({
      type: 'compaction.started',
      sessionId: 's1',
      trigger: 'auto',
      strategy: 'legacy_segmented',
      instructions: null,
      percent: 81,
    });
    expect(store.getState().bySession.s1?.liveCompaction).toMatchObject({ trigger: 'auto', percent: 81, step: null });
    expect(store.getState().bySession.s1?.compacting).toBe(true);
    fake.emit({ type: 'compaction.progress', sessionId: 's1', step: 'summarize' });
    expect(store.getState().bySession.s1?.liveCompaction?.step).toBe('summarize');
    fake.emit({ type: 'compaction.finished', sessionId: 's1', compaction: compaction({ id: 'c9' }) });
    expect(store.getState().bySession.s1?.liveCompaction).toBeNull();
    expect(store.getState().bySession.s1?.compacting).toBe(false);
    expect(store.getState().bySession.s1?.compactions?.map((c) => c.id)).toContain('c9');
  });

  it('a cancelled or failed compaction leaves nothing running', () => {
    fake.emit({
      type: 'compaction.started',
      sessionId: 's1',
      trigger: 'manual',
      strategy: 'cfpm_memory_v1',
      instructions: 'keep paths',
      percent: null,
    });
    fake.emit({ type: 'compaction.failed', sessionId: 's1', reason: 'cancelled', cancelled: true });
    expect(store.getState().bySession.s1?.liveCompaction).toBeNull();
    expect(store.getState().bySession.s1?.compacting).toBe(false);
  });

  it('tool.requested keeps the gate rewrite beside the model call', () => {
    const gate = {
      target: 'Desktop' as const,
      path: '/home/u/Desktop',
      rewrittenArguments: '{"command":"ls /home/u/Desktop"}',
    };
    fake.emit({
      type: 'tool.requested',
      sessionId: 's1',
      messageId: 'a1',
      needsApproval: true,
      toolCall: { id: 't1', type: 'function', function: { name: 'shell', arguments: '{"command":"ls ~/Desktop"}' } },
      gate,
    });
    expect(store.getState().tools.t1?.gate).toEqual(gate);
  });
});
