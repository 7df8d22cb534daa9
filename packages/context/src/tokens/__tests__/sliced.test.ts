import { describe, expect, it } from 'vitest';
import {
  countTextTokens,
  countTextTokensAsync,
  countTextTokensSteps,
  estimateTextTokens,
  yieldToEventLoop,
} from '../encoder';
import { countMessageTokens, countMessageTokensAsync, MemoryTokenCache } from '../count';
import { truncateToolOutput, truncateToolOutputAsync } from '../../truncate/truncate';

const rnd = (n: number, alphabet: string, seed = 99): string => {
  let s = '';
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    s += alphabet[x % alphabet.length];
  }
  return s;
};

const TEXTS: Array<[string, string]> = [
  ['log lines', rnd(120_000, 'abc def ghi\n 12:34 [INFO] x=1 ')],
  ['one character', 'a'.repeat(100_000)],
  ['letters without a space', rnd(60_000, 'abcdefghijklmnopqrstuvwxyz')],
  ['non-ASCII lines', ('naïve café — 中文字符 🙂 ' + rnd(200, 'xyz ') + '\n').repeat(300)],
  ['one non-ASCII run', 'é'.repeat(30_000)],
  ['blank padding', ' '.repeat(40_000) + 'x\n'],
];

describe('sliced counting (issue 25)', () => {
  it.each(TEXTS)('%s: the steps give countTextTokens exactly, for o200k and cl100k', async (_, text) => {
    for (const model of ['gpt-4o', 'gpt-4']) {
      const whole = countTextTokens(text, model);
      expect(await countTextTokensAsync(text, model, { sliceMs: 0 })).toBe(whole);
    }
  });

  it('yields: the event loop runs between the steps of one long count', async () => {
    const text = rnd(200_000, 'abcdefghijklmnopqrstuvwxyz');
    let steps = 0;
    const it = countTextTokensSteps(text, 'gpt-4o');
    while (!it.next().done) steps++;
    expect(steps).toBeGreaterThan(10);
    // With a zero slice every step gives the loop a turn: an immediate queued now runs first.
    let ranBetween = false;
    setImmediate(() => (ranBetween = true));
    let seenWhileCounting = false;
    const counting = countTextTokensAsync(text, 'gpt-4o', { sliceMs: 0 }).then((n) => {
      seenWhileCounting = ranBetween;
      return n;
    });
    await yieldToEventLoop();
    expect(await counting).toBe(countTextTokens(text, 'gpt-4o'));
    expect(seenWhileCounting).toBe(true);
  });

  it('counts a message alike, and estimates one at once', async () => {
    const msg = { role: 'tool' as const, tool_call_id: 'call_1', content: TEXTS[0]![1] };
    const exact = countMessageTokens(msg, 'gpt-4o', new MemoryTokenCache());
    expect(await countMessageTokensAsync(msg, 'gpt-4o', new MemoryTokenCache(), { sliceMs: 0 })).toBe(exact);
    expect(estimateTextTokens('hello')).toBeGreaterThan(0);
    expect(estimateTextTokens('a'.repeat(3000))).toBe(1000);
  });

  it('truncates a large output as truncateToolOutput does, counting in slices', async () => {
    const text = rnd(150_000, 'abc def ghi\n 12:34 [INFO] x=1 ');
    const opts = { maxTokens: 2000, model: 'gpt-4o', outputId: 'call_9' };
    const sync = truncateToolOutput(text, opts);
    const sliced = await truncateToolOutputAsync(text, opts, { sliceMs: 0 });
    expect(sync.truncated).toBe(true);
    expect(sliced).toEqual(sync);
    const small = await truncateToolOutputAsync('short', opts);
    expect(small.truncated).toBe(false);
  });

  it('truncates a 1 MB single-character output with head, tail and marker', async () => {
    const text = 'z'.repeat(1_000_000);
    const cut = await truncateToolOutputAsync(text, { maxTokens: 5000, model: 'gpt-4o', outputId: 'c' });
    expect(cut.truncated).toBe(true);
    expect(cut.text).toContain('tokens truncated');
    expect(cut.text.length).toBeLessThan(100_000);
    expect(countTextTokens(cut.text, 'gpt-4o')).toBeLessThanOrEqual(5000);
  });
});
