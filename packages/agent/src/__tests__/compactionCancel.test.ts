import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FakeRule } from '@threadline/fake-llm';
import { compactionNotices, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

/** A slow summary: long enough to cancel, as a real model's summary of a long session is. */
const SLOW_SUMMARY: FakeRule = {
  match: { summaryRequest: true },
  reply: { content: 'A summary of the session.', delayMsPerChunk: 4000 },
};

/** 80 messages, ~4,400 tokens, plus the system prompt and tools: over 80 % of a 6,000 window. */
function fillSession(pairs = 40): void {
  const text = (i: number, who: string) => `${who} message ${i}: ${'lorem ipsum dolor sit amet '.repeat(7)}`;
  for (let i = 0; i < pairs; i++) {
    h.store.messages.append(h.sessionId, [
      { role: 'user', content: text(i, 'user') },
      { role: 'assistant', content: text(i, 'assistant') },
    ]);
  }
}

const summaryRequests = () => h.llm.chatRequests().filter((r) => r.isSummaryRequest).length;

/** Waits (vi.waitFor) for the n-th summary request. */
const summaryRequestsReach = (n: number) =>
  vi.waitFor(() => expect(summaryRequests()).toBe(n), { timeout: 20_000, interval: 10 });

describe('cancelling a compaction', () => {
  it('chat.cancel stops compaction.run during a slow summary: busy announced and cleared, nothing applied', async () => {
    h = await startHarness({ window: 6000, llm: { rules: [SLOW_SUMMARY] } });
    fillSession();
    const run = h.api['compaction.run']({ sessionId: h.sessionId });
    await summaryRequestsReach(1);
    const state = await h.api['chat.state']({ sessionId: h.sessionId });
    expect(state.busy).toBe(true);
    // A renderer that reloads now still shows the compaction in place, on its step.
    expect(state.compaction).toMatchObject({ trigger: 'manual', step: 'summarize', instructions: null });
    // A turn cannot start while the compaction runs.
    await expect(h.api['chat.send']({ sessionId: h.sessionId, text: 'hi' })).rejects.toMatchObject({ code: 'busy' });
    // The summary takes 4 s a chunk: a run that ends as 'cancelled' was stopped, not waited out.
    expect(await h.api['chat.cancel']({ sessionId: h.sessionId })).toEqual({ cancelled: true });
    expect(await run).toEqual({ ok: false, compaction: null, reason: 'cancelled' });
    expect((await h.api['chat.state']({ sessionId: h.sessionId })).busy).toBe(false);
    expect((await h.api['chat.state']({ sessionId: h.sessionId })).compaction).toBeUndefined();
    expect(await h.api['compaction.list']({ sessionId: h.sessionId })).toEqual([]);
    // A cancel is not a failure: no failure notice.
    expect(compactionNotices(h.history()).length).toBe(0);
    const busy = h.events.flatMap((e) => (e.type === 'session.updated' && e.sessionId === h.sessionId ? [e.busy] : []));
    expect(busy.slice(-2)).toEqual([true, false]);
    await expect(h.api['chat.cancel']({ sessionId: h.sessionId })).resolves.toEqual({ cancelled: false });
  });

  it('sessions.delete waits for a running compaction after stopping it', async () => {
    h = await startHarness({ window: 6000, llm: { rules: [SLOW_SUMMARY] } });
    fillSession();
    const run = h.api['compaction.run']({ sessionId: h.sessionId });
    await summaryRequestsReach(1);
    expect(await h.api['sessions.delete']({ id: h.sessionId })).toEqual({ deleted: true });
    expect((await run).ok).toBe(false);
    expect(h.store.sessions.get(h.sessionId)).toBeNull();
  });

  it('three cancels during auto compaction do not pause auto compaction', async () => {
    h = await startHarness({ window: 6000, llm: { rules: [SLOW_SUMMARY] } });
    fillSession();
    for (let i = 1; i <= 3; i++) {
      await h.api['chat.send']({ sessionId: h.sessionId, text: `go on ${i}` });
      await summaryRequestsReach(i);
      expect(await h.api['chat.cancel']({ sessionId: h.sessionId })).toEqual({ cancelled: true });
    }
    const history = h.history();
    expect(h.events.filter((e) => e.type === 'compaction.started' && e.trigger === 'auto')).toHaveLength(3);
    expect(h.events.filter((e) => e.type === 'compaction.failed' && e.cancelled)).toHaveLength(3);
    expect(compactionNotices(history, 'compaction_failed').length).toBe(0);
    expect(compactionNotices(history, 'auto_paused').length).toBe(0);
    expect((await h.api['context.usage']({ sessionId: h.sessionId })).autoPaused).toBe(false);
    // The next turn still tries.
    h.llm.setRules([{ match: { summaryRequest: true }, reply: { content: 'A summary of the session.' } }]);
    await h.turn('go on 4');
    expect(summaryRequests()).toBe(4);
    expect((await h.api['compaction.list']({ sessionId: h.sessionId })).map((c) => c.trigger)).toEqual(['auto']);
  });
});

describe('a successful manual compaction', () => {
  it('resumes a paused auto compaction', async () => {
    h = await startHarness({
      window: 6000,
      llm: {
        rules: [
          {
            match: { summaryRequest: true },
            reply: { error: { status: 400, message: 'summaries are broken today' } },
            times: 3,
          },
        ],
      },
    });
    fillSession();
    for (let i = 1; i <= 3; i++) {
      await h.turn(`go on ${i}`);
      // The provider's reported usage recalibrates the meter; more material keeps it over the threshold.
      fillSession(15);
    }
    expect(summaryRequests()).toBe(3);
    expect(compactionNotices(h.history(), 'auto_paused').length).toBe(1);
    expect((await h.api['context.usage']({ sessionId: h.sessionId })).autoPaused).toBe(true);
    const res = await h.api['compaction.run']({ sessionId: h.sessionId });
    expect(res.ok).toBe(true);
    expect((await h.api['context.usage']({ sessionId: h.sessionId })).autoPaused).toBe(false);
  });
});
