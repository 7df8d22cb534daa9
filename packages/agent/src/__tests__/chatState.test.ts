import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

describe('chat.state: what a reloading renderer needs to know', () => {
  it('reports the busy turn, the streamed text and the call waiting for approval; approve still works', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'ask' },
      llm: {
        defaultReply: (req): FakeReply =>
          lastIsTool(req)
            ? { content: 'all done' }
            : {
                content: 'Let me check.',
                toolCalls: [{ name: 'shell', arguments: { command: 'sleep 0.4; echo approved-run' } }],
              },
      },
    });
    const idle = await h.api['chat.state']({ sessionId: h.sessionId });
    expect(idle).toEqual({ busy: false, partial: null, pending: [] });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'run it' });
    const req = await h.waitFor('tool.requested');
    // History does not hold the step yet (it is committed after its tools ran)…
    expect(h.history().some((m) => m.role === 'assistant')).toBe(false);
    // …but chat.state does.
    const waiting = await h.api['chat.state']({ sessionId: h.sessionId });
    expect(waiting.busy).toBe(true);
    expect(waiting.partial).toEqual({ messageId: req.messageId, text: 'Let me check.' });
    expect(waiting.pending).toEqual([
      {
        toolCall: req.toolCall,
        messageId: req.messageId,
        needsApproval: true,
        status: 'waiting',
        rules: { parts: expect.any(Array), folder: h.dir },
      },
    ]);
    // The rules its card can save: one part per command of the line.
    expect(waiting.pending[0]!.rules!.parts.map((p) => p.options[p.preferred])).toMatchObject([
      { kind: 'command', words: ['sleep'], more: true },
      { kind: 'command', words: ['echo', 'approved-run'], more: true },
    ]);
    // The renderer answers the call it learned about from chat.state.
    await h.api['chat.approve']({
      sessionId: h.sessionId,
      toolCallId: waiting.pending[0].toolCall.id,
      decision: 'approve',
    });
    const running = await h.api['chat.state']({ sessionId: h.sessionId });
    expect(running.pending.map((p) => p.status)).toEqual(['running']);
    await h.api.idle(h.sessionId);
    expect(h.history().find((m) => m.role === 'tool')?.content).toContain('approved-run');
    expect(await h.api['chat.state']({ sessionId: h.sessionId })).toEqual({ busy: false, partial: null, pending: [] });
    await expect(h.api['chat.state']({ sessionId: 'missing' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('holds the text streamed so far while the model is still answering', async () => {
    const full = 'word '.repeat(120);
    h = await startHarness({ llm: { defaultReply: { content: full, delayMsPerChunk: 15, chunkSize: 5 } } });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'talk for a while' });
    await h.waitFor('message.delta', () => h.events.filter((e) => e.type === 'message.delta').length >= 3);
    const state = await h.api['chat.state']({ sessionId: h.sessionId });
    const deltas = h.events.flatMap((e) => (e.type === 'message.delta' ? [e] : []));
    expect(state.busy).toBe(true);
    expect(state.partial?.messageId).toBe(deltas[0].messageId);
    // Everything the events delivered, and nothing the model has not said.
    expect(
      state.partial?.text.startsWith(
        deltas
          .slice(0, 3)
          .map((d) => d.delta)
          .join(''),
      ),
    ).toBe(true);
    expect(full.startsWith(state.partial?.text ?? 'x')).toBe(true);
    expect(state.partial!.text.length).toBeLessThan(full.length);
    expect(state.pending).toEqual([]);
    await h.api['chat.cancel']({ sessionId: h.sessionId });
    expect(await h.api['chat.state']({ sessionId: h.sessionId })).toEqual({ busy: false, partial: null, pending: [] });
  });
});
