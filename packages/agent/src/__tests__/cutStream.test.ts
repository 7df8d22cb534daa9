// A stream that ends without a finish reason (the provider killed mid-answer) is not an answer:
// real HTTP to fake-llm, real SQLite, the real turn loop.
import { afterEach, describe, expect, it } from 'vitest';
import { parseNotice } from '@threadline/protocol';
import { startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

describe('a cut stream', () => {
  it('after text: keeps the partial text marked partial, adds an error notice, never a complete answer', async () => {
    h = await startHarness();
    h.llm.enqueue({ content: 'Here is the first part of a long', chunkSize: 4, endAfterChunks: 4 });
    await h.turn('explain');
    const history = h.history();
    const assistant = history.filter((m) => m.role === 'assistant');
    expect(assistant).toHaveLength(1);
    expect(assistant[0]!.content).toBe('Here is the ');
    expect(assistant[0]!.meta?.partial).toBe(true);
    const last = history.at(-1)!;
    expect(last.kind).toBe('error_notice');
    const notice = parseNotice(last.content);
    expect(notice?.type === 'error' && notice.payload.type).toBe('provider_error');
    expect(notice?.type === 'error' && notice.payload.message).toMatch(/ended before the provider finished/);
    // One request: text was shown, so it was not retried behind the user's back.
    expect(h.llm.chatRequests()).toHaveLength(1);
    expect(h.events.some((e) => e.type === 'error' && e.code === 'provider_error')).toBe(true);
  });

  it('before any text: retried under the retry policy, and the answer is whole', async () => {
    h = await startHarness();
    h.llm.enqueue({ content: 'lost', endAfterChunks: 1 });
    await h.turn('hello');
    const assistant = h.history().filter((m) => m.role === 'assistant');
    expect(assistant.map((m) => m.content)).toEqual(['You said: hello']);
    expect(assistant[0]!.meta?.partial).toBeUndefined();
    expect(h.history().some((m) => m.kind === 'error_notice')).toBe(false);
    expect(h.llm.chatRequests()).toHaveLength(2);
  });
});
