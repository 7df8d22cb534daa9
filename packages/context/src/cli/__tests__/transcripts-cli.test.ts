/**
 * The CLI answers on every real transcript (issue 3 "the CLI answers on every transcript"):
 * `count` and `compact --json` with each of the 4 strategies, through `main` as the bin runs it.
 * chars/4 counting (llama3) keeps 90 runs fast; the JSON contract does not depend on the tokenizer.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { STRATEGIES } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { main } from '../main';
import { transcriptsDir } from '../transcripts';

const dir = transcriptsDir();
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

const STAT_FIELDS = [
  'originalCount',
  'compactedCount',
  'removed',
  'reductionPercent',
  'originalTokens',
  'compactedTokens',
  'tokensSaved',
];

describe('threadline-context on the 18 transcripts', () => {
  it('finds all 18', () => {
    expect(files).toHaveLength(18);
  });

  it.each(files)('%s: count and compact (4 strategies) exit 0 with the JSON contract', async (f) => {
    const file = path.join(dir, f);
    const count = await run(['count', file, '--json', '--model', 'llama3']);
    expect(count.code, count.err.join('\n')).toBe(0);
    expect(count.out).toHaveLength(1);
    const c = JSON.parse(count.out[0]!);
    expect(c).toMatchObject({ file, model: 'llama3', encoding: 'approx_chars_4', window: 8192 });
    expect(c.messages).toBeGreaterThan(0);
    expect(c.tokens).toBeGreaterThan(0);
    expect(Object.keys(c.breakdown).sort()).toEqual(['memory', 'messages', 'summaries', 'system', 'toolOutputs']);

    for (const strategy of STRATEGIES) {
      const r = await run(['compact', file, '--strategy', strategy, '--manual', '--model', 'llama3', '--json']);
      expect(r.code, `${strategy}: ${r.err.join('\n')}`).toBe(0);
      expect(r.err).toEqual([]);
      expect(r.out).toHaveLength(1);
      const j = JSON.parse(r.out[0]!);
      expect(j).toMatchObject({ strategy, trigger: 'manual', model: 'llama3', window: 8192 });
      expect(typeof j.ok).toBe('boolean');
      expect(j.ok ? j.reason === null : typeof j.reason === 'string').toBe(true);
      expect(Array.isArray(j.view) && j.view.length > 0).toBe(true);
      for (const m of j.view) expect(['system', 'user', 'assistant', 'tool']).toContain(m.role);
      expect(j.history.length).toBeGreaterThanOrEqual(c.messages);
      for (const m of j.history) {
        expect(typeof m.id).toBe('string');
        expect(typeof m.kind).toBe('string');
        expect(typeof m.hidden).toBe('boolean');
        expect(typeof m.visibility.agent).toBe('boolean');
      }
      expect(Object.keys(j.stats).sort()).toEqual([...STAT_FIELDS].sort());
      for (const k of STAT_FIELDS) expect(typeof j.stats[k]).toBe('number');
      expect(j.stats.originalTokens).toBe(j.tokensBefore);
      expect(j.stats.removed).toBe(j.stats.originalCount - j.stats.compactedCount);
      if (!j.ok) expect([j.stats.removed, j.stats.reductionPercent, j.tokensAfter]).toEqual([0, 0, j.tokensBefore]);
      for (const s of j.steps)
        expect([typeof s.name, typeof s.tokensBefore, typeof s.tokensAfter]).toEqual(['string', 'number', 'number']);
      expect(Array.isArray(j.memory.facts) && Array.isArray(j.memory.candidates)).toBe(true);
      expect(j.notices.every((n: unknown) => typeof n === 'string')).toBe(true);
      if (strategy === 'cfpm_memory_v1') expect(j.memory.candidates.length).toBeGreaterThan(0);
    }
  });
});
