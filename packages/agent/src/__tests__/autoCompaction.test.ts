import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { lastIsTool, compactionNotices, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

/** ~2.2 KB of output: about 540 tokens under the chars/4 estimate of an unknown model. */
const bigOutput = (n: number) => ({
  name: 'shell',
  arguments: { command: `for i in $(seq 1 120); do echo "run ${n} line $i xxxxxxxx"; done` },
});

describe('auto compaction', () => {
  it('compacts a long session over the threshold: the view shrinks, history keeps everything', async () => {
    let n = 0;
    // The window holds the tool definitions too, and the provider counts these lines at ~1.5x the
    // chars/4 estimate: 10,000 tokens leave room for legacy's 3 + 10 kept messages and a summary.
    h = await startHarness({
      window: 10_000,
      settings: { approvalPolicy: 'auto' },
      llm: {
        defaultReply: (req): FakeReply =>
          lastIsTool(req) ? { content: `noted ${n}` } : { toolCalls: [bigOutput(++n)] },
      },
    });
    for (let t = 1; t <= 9; t++) await h.turn(`turn ${t}: run the next batch`);
    const records = await h.api['compaction.list']({ sessionId: h.sessionId });
    expect(records.length).toBeGreaterThan(0);
    expect(records[0].trigger).toBe('auto');
    expect(records[0].tokensAfter).toBeLessThan(records[0].tokensBefore);
    // One element per compaction: typed events while it runs, the record after; no notices.
    const started = h.events.find((e) => e.type === 'compaction.started');
    expect(started?.type === 'compaction.started' && started.trigger).toBe('auto');
    expect(started?.type === 'compaction.started' && started.percent).toBeGreaterThanOrEqual(80);
    expect(h.events.some((e) => e.type === 'compaction.finished' && e.compaction.id === records[0].id)).toBe(true);
    expect(compactionNotices(h.history(), 'auto_compacting')).toEqual([]);
    expect(compactionNotices(h.history(), 'compacted')).toEqual([]);
    // Nothing is lost: every user message and every tool result is still in history.
    const history = h.history();
    for (let t = 1; t <= 9; t++) expect(history.some((m) => m.content === `turn ${t}: run the next batch`)).toBe(true);
    // (Pruned outputs add agent-only placeholders; the user's history keeps the 9 results.)
    expect(history.filter((m) => m.role === 'tool' && m.visibility.user).length).toBe(9);
    // The model's latest request is smaller than the history it stands for, and carries the summary.
    const last = h.llm
      .chatRequests()
      .filter((r) => !r.isSummaryRequest)
      .at(-1)!;
    const sent = (last.body as { messages: unknown[] }).messages.length;
    expect(sent).toBeLessThan(history.filter((m) => m.visibility.agent && m.kind === 'normal').length);
    expect(h.llm.chatRequests().some((r) => r.isSummaryRequest)).toBe(true);
    const usage = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(usage.percent).toBeLessThan(80);
    expect(usage.breakdown.summaries).toBeGreaterThan(0);
  }, 120_000);

  it('compacts between tool calls of one long turn', async () => {
    let n = 0;
    h = await startHarness({
      window: 8000,
      settings: { approvalPolicy: 'auto' },
      llm: {
        defaultReply: (): FakeReply => (n < 16 ? { toolCalls: [bigOutput(++n)] } : { content: 'all batches done' }),
      },
    });
    await h.turn('run sixteen batches');
    const history = h.history();
    const user = history.find((m) => m.content === 'run sixteen batches')!;
    const final = history.find((m) => m.content === 'all batches done')!;
    expect(final).toBeDefined();
    const records = await h.api['compaction.list']({ sessionId: h.sessionId });
    expect(records.length).toBeGreaterThan(0);
    // The compaction happened inside the turn: after the user message, before the final answer.
    expect(records[0].afterSeq).toBeGreaterThan(user.seq);
    expect(records[0].afterSeq).toBeLessThan(final.seq);
    // (Pruned outputs add agent-only placeholders; the user's history keeps the 16 results.)
    expect(history.filter((m) => m.role === 'tool' && m.visibility.user).length).toBe(16);
    // Under legacy's 20 messages the run prunes old outputs (no model call), and the request after
    // it is smaller than the one before, though the turn only grew in between.
    const reqs = h.llm.chatRequests().filter((r) => !r.isSummaryRequest);
    const shrank = reqs.findIndex((r, i) => i > 0 && r.promptTokens! < reqs[i - 1]!.promptTokens!);
    expect(shrank).toBeGreaterThan(0);
    expect(records[0].steps.some((st) => st.name === 'prune_tool_outputs' && (st.pruned as number) > 0)).toBe(true);
  }, 120_000);

  it('a threshold of 0 disables auto compaction', async () => {
    let n = 0;
    h = await startHarness({
      window: 6000,
      settings: { approvalPolicy: 'auto', compaction: { autoThreshold: 0 } },
      llm: { defaultReply: (): FakeReply => (n < 12 ? { toolCalls: [bigOutput(++n)] } : { content: 'done' }) },
    });
    await h.turn('go');
    expect(await h.api['compaction.list']({ sessionId: h.sessionId })).toEqual([]);
    expect(compactionNotices(h.history())).toEqual([]);
  });
});

describe('calibrated budget', () => {
  it('counts the tool definitions and learns from reported usage, so auto compaction comes before a context error', async () => {
    // Numbers cost the provider ~2 tokens per line, while an unknown model is estimated at chars/4:
    // uncalibrated, the estimate stays under 80 % until the provider refuses the request.
    let n = 0;
    const numbers = (k: number) => ({ name: 'shell', arguments: { command: `seq ${k * 1000} ${k * 1000 + 400}` } });
    h = await startHarness({
      window: 6000,
      settings: { approvalPolicy: 'auto', compaction: { strategy: 'cfpm_memory_v1' } },
      // The provider refuses what is over the window, as a real one does.
      llm: {
        contextWindow: 6000,
        defaultReply: (req): FakeReply => (lastIsTool(req) ? { content: `noted ${n}` } : { toolCalls: [numbers(++n)] }),
      },
    });
    await h.turn('turn 1: print the first batch');
    const first = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(first.breakdown.tools).toBeGreaterThan(200);
    expect(first.calibration).toBeGreaterThan(1.05);
    expect(first.providerPromptTokens).not.toBeNull();
    // The meter speaks in the provider's tokens: close to what the provider reported last.
    expect(Math.abs(first.total - first.providerPromptTokens!) / first.providerPromptTokens!).toBeLessThan(0.25);
    for (let t = 2; t <= 12; t++) await h.turn(`turn ${t}: print the next batch`);
    expect(h.events.some((e) => e.type === 'compaction.started' && e.trigger === 'auto')).toBe(true);
    expect(compactionNotices(h.history(), 'recovering')).toEqual([]);
    expect(h.llm.chatRequests().every((r) => r.status === 200)).toBe(true);
  }, 120_000);
});

describe('calibration per profile', () => {
  it('a ratio learned on one model is not carried over to another', async () => {
    const numbers = { name: 'shell', arguments: { command: 'seq 1000 1250' } };
    h = await startHarness({
      settings: { approvalPolicy: 'auto' },
      llm: { defaultReply: (req): FakeReply => (lastIsTool(req) ? { content: 'ok' } : { toolCalls: [numbers] }) },
    });
    await h.turn('print numbers');
    const learned = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(learned.calibration).not.toBe(1);
    expect(learned.providerPromptTokens).not.toBeNull();
    const other = await h.api['providers.upsert']({
      preset: 'custom',
      name: 'other',
      baseUrl: h.llm.url,
      model: 'gpt-4o',
      contextWindow: 128_000,
    });
    // The user moves the session to the other profile (a new default alone would not move it).
    await h.api['sessions.setModel']({ id: h.sessionId, profileId: other.id, model: null });
    const fresh = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(fresh.calibration).toBe(1);
    expect(fresh.providerPromptTokens).toBeNull();
  });
});
