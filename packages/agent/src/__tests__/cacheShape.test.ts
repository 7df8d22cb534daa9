import { describe, expect, it } from 'vitest';
import { STRATEGIES } from '@threadline/protocol';
import { measureCacheShape } from '../../bench/cacheShape';

// Issue 24, "Done when": through the real runtime and fake-llm over HTTP, a 60-turn session with
// tool calls and at least 4 compactions keeps the provider's cache for every strategy. The
// figures count request bodies; nothing here depends on time.
describe('requests extend each other (prompt cache)', () => {
  it.each(STRATEGIES)(
    '%s: ≥ 95 % of pairs between compactions are extensions, ≥ 90 % of characters repeat a prefix',
    async (strategy) => {
      const f = await measureCacheShape({ strategy });
      expect(f.compactions).toBeGreaterThanOrEqual(4);
      expect(f.requests).toBeGreaterThan(60);
      expect(f.extensionShare).toBeGreaterThanOrEqual(0.95);
      expect(f.prefixShare).toBeGreaterThanOrEqual(0.9);
      // fake-llm's own count of what it had seen agrees that the prefix was reused.
      expect(f.cachedShare).toBeGreaterThanOrEqual(0.85);
    },
    240_000,
  );
});
