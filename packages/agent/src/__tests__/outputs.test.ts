import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

describe('full outputs', () => {
  it('messages.list leaves full outputs out; meta.truncated marks them; messages.fullOutput fetches one', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'auto', toolOutput: { maxTokens: 200 } },
      llm: {
        defaultReply: (req): FakeReply =>
          lastIsTool(req)
            ? { content: 'counted' }
            : {
                toolCalls: [
                  { name: 'shell', arguments: { command: 'seq 1 5000' } },
                  { name: 'shell', arguments: { command: 'echo short' } },
                ],
              },
      },
    });
    await h.turn('count');
    const listed = await h.api['messages.list']({ sessionId: h.sessionId });
    const [long, short] = listed.filter((m) => m.role === 'tool');
    expect(long.meta?.truncated).toBe(true);
    expect(long.fullOutput).toBeUndefined();
    expect(long.content).toMatch(/truncated/);
    // An output that fit is not marked and has nothing to fetch.
    expect(short.meta?.truncated).toBeUndefined();
    expect(await h.api['messages.fullOutput']({ id: short.id })).toEqual({ text: null });
    const full = await h.api['messages.fullOutput']({ id: long.id });
    expect(full.text).toContain('\n4999\n5000');
    expect(JSON.stringify(listed)).not.toContain('\n4999\n5000');
    const user = listed.find((m) => m.role === 'user')!;
    expect(await h.api['messages.fullOutput']({ id: user.id })).toEqual({ text: null });
    await expect(h.api['messages.fullOutput']({ id: 'no-such-message' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('an oversized user message is cut for the model (head + tail, marker) and kept whole for the user', async () => {
    // A 2,000-token window: anything over 1,000 tokens is over half of it.
    h = await startHarness({ window: 2000 });
    const lines = Array.from({ length: 1500 }, (_, i) => `pasted line ${i + 1}`);
    const text = lines.join('\n');
    const { userMessageId } = await h.api['chat.send']({ sessionId: h.sessionId, text });
    await h.api.idle(h.sessionId);
    const stored = (await h.api['messages.list']({ sessionId: h.sessionId })).find((m) => m.id === userMessageId)!;
    expect(stored.meta?.truncated).toBe(true);
    expect(stored.content).toContain('pasted line 1\n');
    expect(stored.content).toContain('pasted line 1500');
    expect(stored.content).not.toContain('pasted line 700\n');
    expect(stored.content).toMatch(/tokens truncated/);
    expect(stored.content!.length).toBeLessThan(text.length / 3);
    // The user can still open the whole paste, and an export carries it whole.
    expect(await h.api['messages.fullOutput']({ id: userMessageId })).toEqual({ text });
    const md = await h.api['sessions.export']({ id: h.sessionId, format: 'markdown' });
    expect(md.content).toContain('pasted line 700\n');
    // What the model got is the cut text; a context error did not happen.
    const sent = JSON.stringify(h.llm.chatRequests()[0].body);
    expect(sent).toContain('pasted line 1500');
    expect(sent).not.toContain('pasted line 700\\n');
    expect(h.history().at(-1)?.role).toBe('assistant');
    // A normal message is stored as it is.
    const small = await h.api['chat.send']({ sessionId: h.sessionId, text: 'short one' });
    await h.api.idle(h.sessionId);
    expect(h.store.messages.get(small.userMessageId)).toMatchObject({ content: 'short one', fullOutput: null });
    expect(h.store.messages.get(small.userMessageId)?.meta).toBeUndefined();
  });

  it('read_tool_output reads an oversized paste by the message id its marker names', async () => {
    let pasteId = '';
    h = await startHarness({
      window: 4000,
      llm: {
        defaultReply: (req): FakeReply => {
          const last = req.messages.at(-1);
          if (last?.role !== 'user') return { content: `read: ${String(last?.content).slice(0, 60)}` };
          // The fake model takes the id from the marker it was sent, as a real one would.
          pasteId = /read_tool_output\(id: "([^"]+)"/.exec(String(last.content))?.[1] ?? 'none';
          return { toolCalls: [{ name: 'read_tool_output', arguments: { id: pasteId, offset: 0, limit: 40 } }] };
        },
      },
    });
    const text = Array.from({ length: 2000 }, (_, i) => `row ${i + 1}`).join('\n');
    const { userMessageId } = await h.api['chat.send']({ sessionId: h.sessionId, text });
    await h.api.idle(h.sessionId);
    expect(pasteId).toBe(userMessageId);
    const result = h.history().find((m) => m.role === 'tool')!;
    expect(result.meta?.status).toBe('ok');
    expect(result.content!.startsWith('row 1\nrow 2\n')).toBe(true);
  });
});
