import { describe, expect, it } from 'vitest';
import { STRATEGIES } from '@threadline/protocol';
import { runStrictSession } from '../../bench/strictSession';

/**
 * Issue 36 point 1: every request the app sends is valid for the strictest OpenAI-compatible
 * provider, wherever a compaction fires. A long tool-heavy session with a small window, through
 * the real runtime, against fake-llm in strict mode (a 400 with the provider's sentence for a call
 * without its results, an orphan result, …) and refusing prompts over the window.
 */
describe('a strict provider and a small window', () => {
  it.each(STRATEGIES.map((s) => [s]))(
    '%s: no request refused for its shape, no compaction failed, compactions between tool calls',
    async (strategy) => {
      const f = await runStrictSession({ strategy });
      expect(f.rejections).toEqual([]);
      expect(f.rejected).toBe(0);
      expect(f.overWindowRequests).toBe(0);
      expect(f.failures).toEqual([]);
      expect(f.compactions).toBeGreaterThanOrEqual(2);
      expect(f.betweenToolCalls).toBeGreaterThanOrEqual(1);
      expect(f.overWindowCompactions).toBe(0);
      expect(f.taskKept).toBe(true);
    },
    180_000,
  );
});
