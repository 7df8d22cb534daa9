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
