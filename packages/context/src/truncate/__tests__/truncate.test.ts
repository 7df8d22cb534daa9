import { describe, expect, it } from 'vitest';
import { capFullOutput, FULL_OUTPUT_MAX_BYTES, safeHead, safeTail, truncateToolOutput } from '..';
import { countTextTokens } from '../../tokens';

const lines = (n: number, w = 'line') => Array.from({ length: n }, (_, i) => `${w} ${i} of the output`).join('\n');
const noBrokenChars = (s: string) => {
  expect(s).not.toContain('\uFFFD');
  expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s)).toBe(false);
};

describe('truncateToolOutput (tokens policy)', () => {
  it('leaves outputs at or under maxTokens untouched', () => {
    const text = lines(10);
    const r = truncateToolOutput(text, { model: 'gpt-4o', maxTokens: 5000 });
    expect(r.truncated).toBe(false);
    expect(r.text).toBe(text);
  });

  it('does not cut 4,500 tokens under the default 5,000 limit (the ×1.2 buffer sizes the cut, not the threshold)', () => {
    const per = countTextTokens(lines(100), 'gpt-4o') / 100;
    const text = lines(Math.round(4500 / per));
    const tokens = countTextTokens(text, 'gpt-4o');
    expect(tokens).toBeGreaterThan(4200);
    expect(tokens).toBeLessThan(5000);
    const r = truncateToolOutput(text, { model: 'gpt-4o' });
    expect(r.truncated).toBe(false);
    expect(r.text).toBe(text);
  });

  it('cuts exactly above maxTokens and keeps maxTokens / 1.2 tokens', () => {
    const text = lines(1200);
    const tokens = countTextTokens(text, 'gpt-4o');
    expect(truncateToolOutput(text, { model: 'gpt-4o', maxTokens: tokens }).truncated).toBe(false);
    const r = truncateToolOutput(text, { model: 'gpt-4o', maxTokens: tokens - 1 });
    expect(r.truncated).toBe(true);
    const keep = Math.floor((tokens - 1) / 1.2);
    expect(r.removed).toBe(tokens - keep);
    const body = r.text.replace(/^Total output lines: \d+\n\n/, '').replace(/\n…[^\n]*…[^\n]*\n/, '');
    expect(countTextTokens(body, 'gpt-4o')).toBeLessThanOrEqual(keep + 2);
  });

  it('applies the same threshold to models without a BPE (chars / 4)', () => {
    expect(truncateToolOutput('x'.repeat(4000), { model: 'llama3', maxTokens: 1000 }).truncated).toBe(false);
    const r = truncateToolOutput('x'.repeat(4001), { model: 'llama3', maxTokens: 1000 });
    expect(r.truncated).toBe(true);
    expect(r.text.match(/x+/g)!.reduce((n, run) => n + run.length, 0)).toBe(Math.floor(1000 / 1.2) * 4);
  });

  it('keeps head and tail 50/50 with the marker, the line count and the read_tool_output hint', () => {
    const text = lines(3000);
    const r = truncateToolOutput(text, { model: 'gpt-4o', maxTokens: 1000, outputId: 'call_7' });
    expect(r.truncated).toBe(true);
    expect(r.text.startsWith('Total output lines: 3000\n')).toBe(true);
    expect(r.text).toContain('line 0 of the output');
    expect(r.text).toContain('line 2999 of the output');
    expect(r.text).not.toContain('line 1500 of the output');
    expect(r.text).toMatch(new RegExp(`…${r.removed} tokens truncated…`));
    expect(r.text).toContain('read_tool_output(id: "call_7"');
    const [head, tail] = r.text.split(/\n…\d+ tokens truncated…[^\n]*\n/);
    const h = countTextTokens(head!.replace('Total output lines: 3000\n\n', ''), 'gpt-4o');
    const t = countTextTokens(tail!, 'gpt-4o');
    expect(Math.abs(h - t)).toBeLessThanOrEqual(4);
    expect(r.removed).toBe(countTextTokens(text, 'gpt-4o') - Math.floor(1000 / 1.2));
  });

  it('never splits an emoji or a CJK character at the cut', () => {
    const text = '😀中文🎉'.repeat(4000);
    const r = truncateToolOutput(text, { model: 'gpt-4o', maxTokens: 301 });
    expect(r.truncated).toBe(true);
    const body = r.text.replace(/^Total output lines: \d+\n\n/, '').replace(/\n…[^\n]*…[^\n]*\n/, '');
    noBrokenChars(body);
  });

  it('works for models without a BPE (chars/4 estimate) and under policy none', () => {
    const text = 'x'.repeat(100_000);
    const approx = truncateToolOutput(text, { model: 'llama3', maxTokens: 1000 });
    expect(approx.truncated).toBe(true);
    expect(approx.text).toContain('tokens truncated…');
    expect(truncateToolOutput(text, { policy: 'none', maxTokens: 10 }).text).toBe(text);
  });
});

describe('truncateToolOutput (bytes policy)', () => {
  const utf8 = (t: string) => new TextEncoder().encode(t).length;
  const parts = (r: { text: string }) => {
    const m = /^Total output lines: \d+\n\n([\s\S]*)\n…(\d+) chars truncated…[^\n]*\n([\s\S]*)$/.exec(r.text);
    expect(m).not.toBeNull();
    return { head: m![1]!, count: Number(m![2]), tail: m![3]! };
  };

  it('counts UTF-8 bytes against maxTokens × 4: 4,000 ASCII bytes fit 1,000 tokens, 4,001 do not', () => {
    expect(truncateToolOutput('a'.repeat(4000), { policy: 'bytes', maxTokens: 1000 }).truncated).toBe(false);
    expect(truncateToolOutput('a'.repeat(4001), { policy: 'bytes', maxTokens: 1000 }).truncated).toBe(true);
  });

  it('cuts CJK text by its bytes, not its UTF-16 length, and keeps (maxTokens / 1.2) × 4 bytes', () => {
    const text = '中文字'.repeat(700); // 2,100 UTF-16 units, 6,300 bytes
    const r = truncateToolOutput(text, { policy: 'bytes', maxTokens: 1000 });
    expect(r.truncated).toBe(true);
    expect(r.unit).toBe('chars');
    const { head, tail, count } = parts(r);
    const budget = Math.floor(1000 / 1.2) * 4;
    expect(utf8(head) + utf8(tail)).toBeLessThanOrEqual(budget);
    expect(utf8(head) + utf8(tail)).toBeGreaterThan(budget - 6);
    expect(Math.abs(utf8(head) - utf8(tail))).toBeLessThanOrEqual(3);
    expect(text.startsWith(head) && text.endsWith(tail)).toBe(true);
    expect(count).toBe(r.removed);
    expect(count + head.length + tail.length).toBe(text.length);
  });

  it('never splits an emoji or a multi-byte character, and counts removed characters as code points', () => {
    const text = 'a😀é中🎉'.repeat(5000);
    const r = truncateToolOutput(text, { policy: 'bytes', maxTokens: 1001 });
    const { head, tail, count } = parts(r);
    noBrokenChars(head);
    noBrokenChars(tail);
    expect(text.startsWith(head) && text.endsWith(tail)).toBe(true);
    expect(count + [...head].length + [...tail].length).toBe([...text].length);
    expect(utf8(head) + utf8(tail)).toBeLessThanOrEqual(Math.floor(1001 / 1.2) * 4);
  });

  it('safeHead/safeTail step around surrogate pairs', () => {
    expect(safeHead('a😀b', 2)).toBe('a');
    expect(safeTail('a😀b', 2)).toBe('b');
    expect(safeHead('a😀b', 3)).toBe('a😀');
  });
});

describe('capFullOutput', () => {
  it('keeps outputs under 1 MiB and caps bigger ones with a marker on a character boundary', () => {
    expect(capFullOutput('small').capped).toBe(false);
    const big = 'é'.repeat(FULL_OUTPUT_MAX_BYTES); // 2 bytes each: 2 MiB
    const r = capFullOutput(big);
    expect(r.capped).toBe(true);
    expect(r.text).toMatch(/full output capped at 1048576 bytes; \d+ bytes dropped from the middle/);
    const [head, tail] = r.text.split(/\n…\[[^\]]*\]…\n/);
    const bytes = (s: string) => new TextEncoder().encode(s).length;
    expect(bytes(head!) + bytes(tail!)).toBeLessThanOrEqual(FULL_OUTPUT_MAX_BYTES);
    noBrokenChars(r.text);
    expect(r.droppedBytes).toBe(2 * FULL_OUTPUT_MAX_BYTES - bytes(head!) - bytes(tail!));
  });

  it('keeps the end of a huge output (how the command ended), not only its start', () => {
    const log = `start\n${'x'.repeat(3 * FULL_OUTPUT_MAX_BYTES)}\nFAILED: 3 tests\nexit code: 1`;
    const r = capFullOutput(log);
    expect(r.text.startsWith('start\n')).toBe(true);
    expect(r.text.endsWith('FAILED: 3 tests\nexit code: 1')).toBe(true);
  });
});
