import { afterEach, describe, expect, it } from 'vitest';
import type { ContextUsage, Strategy } from '@threadline/protocol';
import type { FakeReply } from '@threadline/fake-llm';
import { lastIsTool, startHarness, type Harness } from './harness';

/**
 * Issue 36 point 6: the meter, its breakdown, the dividers and the preview count the same way.
 * The provider counts differently from the engine's estimate here (numbers: a calibration ratio
 * well over 1), so any figure left in the engine's units would show.
 */
let h: Harness;
afterEach(async () => h?.close());

const sum = (u: ContextUsage): number => Object.values(u.breakdown).reduce((n: number, v) => n + (v ?? 0), 0);

async function session(strategy: Strategy): Promise<Harness> {
  let n = 0;
  const x = await startHarness({
    window: 200_000,
    settings: { approvalPolicy: 'auto', compaction: { strategy, autoThreshold: 0.95 } },
    llm: {
      defaultReply: (req): FakeReply =>
        lastIsTool(req)
          ? { content: `batch ${n} printed` }
          : { toolCalls: [{ name: 'shell', arguments: { command: `seq ${++n * 1000} ${n * 1000 + 300}` } }] },
    },
  });
  for (let t = 1; t <= 8; t++) await x.turn(`print batch ${t} of the numbers`);
  return x;
}

describe('one count for the meter, its breakdown, the dividers and the preview', () => {
  it.each<Strategy>(['cfpm_memory_v1', 'legacy_segmented'])(
    '%s: the breakdown sums to the meter; a preview and a divider start from it and end where the meter lands',
    async (strategy) => {
      h = await session(strategy);
      const before = await h.api['context.usage']({ sessionId: h.sessionId });
      expect(before.calibration).toBeGreaterThan(1.1);
      expect(sum(before)).toBe(before.total);
      const preview = await h.api['compaction.preview']({ sessionId: h.sessionId });
      expect(preview.ok).toBe(true);
      expect(preview.tokensBefore).toBe(before.total);
      const { compaction } = await h.api['compaction.run']({ sessionId: h.sessionId });
      expect(compaction).not.toBeNull();
      const after = await h.api['context.usage']({ sessionId: h.sessionId });
      expect(compaction!.tokensBefore).toBe(before.total);
      expect(compaction!.tokensAfter).toBe(after.total);
      expect(sum(after)).toBe(after.total);
      // A deterministic strategy previews exactly what it then does.
      if (strategy === 'cfpm_memory_v1') expect(preview.tokensAfter).toBe(after.total);
      // The last usage event of the run said the same.
      const events = h.events.filter((e) => e.type === 'usage' && e.sessionId === h.sessionId);
      const last = events.at(-1);
      expect(last?.type === 'usage' && last.usage.total).toBe(after.total);
    },
    120_000,
  );
});

describe('context.measureDraft: a draft in the meter’s units, before it is sent', () => {
  it('a huge first message is over the window before it is sent; a short one adds what it weighs', async () => {
    h = await startHarness({ window: 8_000, llm: { defaultReply: () => ({ content: 'ok' }) } });
    const usage = await h.api['context.usage']({ sessionId: h.sessionId });
    const task = 'Please summarise the table below by region and flag any month with a drop over 10%.\n';
    const paste =
      task + Array.from({ length: 3_000 }, (_, i) => `row ${i},north,${(i * 37) % 1000},${i % 12}`).join('\n');
    expect(paste.length).toBeGreaterThan(60_000);
    const big = await h.api['context.measureDraft']({ sessionId: h.sessionId, text: paste });
    expect(big.window).toBe(usage.window);
    expect(big.total).toBe(usage.total + big.tokens);
    expect(big.tokens * 2).toBeGreaterThan(big.window);
    expect(big.percent).toBeGreaterThan(100);
    const small = await h.api['context.measureDraft']({ sessionId: h.sessionId, text: 'hi' });
    expect(small.tokens).toBeGreaterThan(0);
    expect(small.tokens).toBeLessThan(20);
    expect(small.percent).toBeLessThan(100);
    // Sent anyway, it reaches the model as its head (the task) and its tail, under the window.
    await h.turn(paste);
    const after = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(after.percent).toBeLessThan(100);
    const last = h.llm.requests.filter((r) => r.status === 200 && !r.isSummaryRequest).at(-1)!;
    expect(last.promptTokens!).toBeLessThanOrEqual(8_000);
    expect(JSON.stringify(last.body)).toContain('flag any month with a drop over 10%');
  }, 120_000);
});
