import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { MAX_ATTEMPTS_MESSAGE } from '../index';
import { lastIsTool, compactionNotices, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

const bigOutput = (n: number) => ({
  name: 'shell',
  arguments: { command: `for i in $(seq 1 120); do echo "run ${n} line $i xxxxxxxx"; done` },
});
const payload = (content: string | null) => JSON.parse((content ?? '').slice((content ?? '').indexOf('{')));

/** A session of `turns` turns, each with one big tool output, while the provider has no limit. */
async function longSession(
  turns: number,
  strategy: 'legacy_segmented' | 'cfpm_memory_v1' = 'legacy_segmented',
): Promise<void> {
  let n = 0;
  h = await startHarness({
    // The runtime believes in a huge window, so only the provider's error can trigger compaction.
    window: 1_000_000,
    settings: { approvalPolicy: 'auto', compaction: { strategy } },
    llm: {
      defaultReply: (req): FakeReply => (lastIsTool(req) ? { content: `noted ${n}` } : { toolCalls: [bigOutput(++n)] }),
    },
  });
  for (let t = 1; t <= turns; t++) await h.turn(`turn ${t}`);
}

describe('recovery from a context-length error', () => {
  it('compacts with a lower target and retries the same turn', async () => {
    await longSession(8);
    const before = h.llm.chatRequests().at(-1)!.promptTokens!;
    // The provider's real window is smaller than the next request.
    h.llm.setContextWindow(before);
    await h.turn('turn 9');
    const history = h.history();
    const recovering = compactionNotices(history, 'recovering');
    expect(recovering.length).toBe(1);
    expect(payload(recovering[0].content).maxAttempts).toBe(3);
    const records = await h.api['compaction.list']({ sessionId: h.sessionId });
    expect(records.map((r) => r.trigger)).toEqual(['recovery']);
    // The retry went through: the turn finished with the model's answer.
    expect(history.filter((m) => m.role === 'assistant').at(-1)?.content).toBe('noted 9');
    const ok = h.llm.requests.filter((r) => r.status === 200 && !r.isSummaryRequest).at(-1)!;
    expect(ok.promptTokens!).toBeLessThanOrEqual(before);
  });

  it('stops after 3 attempts with the max-attempts notice', async () => {
    await longSession(3);
    // Ollama's wording states no window to learn: the attempts run out.
    h.llm.setContextWindow(50, 'ollama');
    const calls = h.llm.chatRequests().filter((r) => !r.isSummaryRequest).length;
    await h.turn('turn 4');
    const history = h.history();
    const last = history.at(-1)!;
    expect(last.kind).toBe('error_notice');
    const p = payload(last.content);
    expect(p.type).toBe('max_attempts');
    expect(p.reason).toBe(MAX_ATTEMPTS_MESSAGE);
    expect(MAX_ATTEMPTS_MESSAGE).toBe('Reached maximum compaction attempts. Please start a new session to continue.');
    expect(compactionNotices(history, 'recovering').length).toBe(3);
    // One request plus three retries, and no answer from the model.
    expect(h.llm.chatRequests().filter((r) => !r.isSummaryRequest).length - calls).toBe(4);
    expect(history.filter((m) => m.role === 'assistant').length).toBe(6);
    // None of them helped: none stays applied.
    const records = await h.api['compaction.list']({ sessionId: h.sessionId });
    expect(records.filter((r) => r.trigger === 'recovery').length).toBeGreaterThan(0);
    expect(records.filter((r) => r.active)).toEqual([]);
  });

  it('allows 6 attempts under cfpm_memory_v1', async () => {
    await longSession(2, 'cfpm_memory_v1');
    h.llm.setContextWindow(50, 'ollama');
    const calls = h.llm.chatRequests().length;
    await h.turn('turn 3');
    const p = payload(h.history().at(-1)!.content);
    expect(p.type).toBe('max_attempts');
    expect(p.maxAttempts).toBe(6);
    // CFPM checkpoints need no model call: every request is the turn's own.
    expect(h.llm.chatRequests().length - calls).toBe(7);
  });

  it('stops at once, saying why, when what may not be hidden (the system prompt) is over the window', async () => {
    // Measure the tool definitions and system prompt, then give the model a window that holds
    // the tools and only half the system prompt.
    h = await startHarness({
      window: 1_000_000,
      settings: { approvalPolicy: 'auto' },
      llm: { defaultReply: { content: 'ok' } },
    });
    const usage = await h.api['context.usage']({ sessionId: h.sessionId });
    await h.close();
    h = await startHarness({
      window: usage.breakdown.tools + Math.floor(usage.breakdown.system / 2),
      settings: { approvalPolicy: 'auto', compaction: { strategy: 'priority_chain', autoThreshold: 0.99 } },
      llm: { defaultReply: { content: 'ok' } },
    });
    h.llm.setContextWindow(10);
    const calls = h.llm.chatRequests().length;
    await h.turn('hello there, please answer');
    const history = h.history();
    expect(compactionNotices(history, 'recovering').length).toBe(1);
    expect(compactionNotices(history, 'max_attempts')).toEqual([]);
    const failed = compactionNotices(history, 'compaction_failed').at(-1)!;
    expect(payload(failed.content).reason).toMatch(
      /^message_over_window: the system prompt, tool definitions and memory block are \d+ tokens/,
    );
    // One request, no retry of a request that cannot fit.
    expect(h.llm.chatRequests().length - calls).toBe(1);
  });
});
