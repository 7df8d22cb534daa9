import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getEncoding } from 'js-tiktoken';
import { asciiEngine, countTextTokensWith, resetPieceCache } from '../encoder';
import { TEXT_CAP } from '../wasmAscii';
import { WASM_FILE } from '../vocab';
import { compileCounter } from '../../../scripts/wasmCompile';

/**
 * The WebAssembly counter of ASCII text (assembly/o200k.ts → vocab/o200k_count.wasm) must count
 * exactly as the JavaScript one, which is js-tiktoken's count (pieces.test.ts), on every kind of
 * ASCII text, at every size: cut into calls, long pieces handed back, its caches overflowing.
 */
const o200k = getEncoding('o200k_base');
const both = (text: string): [number, number] => [
  countTextTokensWith(text, 'gpt-4o', 'wasm'),
  countTextTokensWith(text, 'gpt-4o', 'js'),
];

/** A seeded generator of ASCII text mixing every class the scanner tells apart. */
function asciiText(seed: number, length: number, newlines = true): string {
  let s = seed >>> 0;
  const next = (): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
  const words = ['the', 'Error', 'HTTPServer', 'getX', "it's", "WE'LL", 'x_1', 'naN', 'zzqx', 'Qwrt', 'aB'];
  const punct = ['(', ')', '=>', '/', '//', '{', '}', ';', '==', '+', '-', '.', ',', "'", '"', '`', '#'];
  const space = [' ', '  ', '\t', ' \t ', '\v', '\f'];
  const parts: string[] = [];
  let n = 0;
  while (n < length) {
    const r = next() % 100;
    let p: string;
    if (r < 40) p = words[next() % words.length]!;
    else if (r < 55) p = String(next() % 100000);
    else if (r < 75) p = punct[next() % punct.length]!;
    else if (r < 92) p = space[next() % space.length]!;
    else if (newlines) p = ['\n', '\r\n', '\n\n  ', '\n/', ' \n'][next() % 5]!;
    else p = ' ';
    parts.push(p);
    n += p.length;
  }
  return parts.join('').slice(0, length);
}

describe('WebAssembly counter of ASCII text', () => {
  it('is what a process with the vocabulary asset counts with', () => {
    expect(asciiEngine()).toBe('wasm');
  });

  it('is the committed module compiled from assembly/o200k.ts (rebuild: pnpm build:wasm)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-wasm-'));
    try {
      const fresh = await compileCounter(join(dir, WASM_FILE));
      const committed = readFileSync(fileURLToPath(new URL(`../../../vocab/${WASM_FILE}`, import.meta.url)));
      expect(Buffer.from(fresh).equals(committed)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('counts generated code-like text exactly as js-tiktoken, cold and warm', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const text = asciiText(seed, 200 + seed * 97);
      const ref = o200k.encode(text, [], []).length;
      resetPieceCache();
      expect(both(text), `seed ${seed}`).toEqual([ref, ref]);
      expect(both(text), `seed ${seed}, warm`).toEqual([ref, ref]);
    }
  });

  it('gives the same count at the edges of a call: contractions and digits at the end, one char, empty', () => {
    for (const text of ["don'", "don't", "DON'T", 'x', '', '12345', "a'", "it'l", "it'll", ' ', '\n', 'a\n/b', '  x']) {
      const ref = o200k.encode(text, [], []).length;
      expect(both(text), JSON.stringify(text)).toEqual([ref, ref]);
    }
  });

  it('counts a long text of every kind of piece exactly as js-tiktoken', () => {
    const text = asciiText(7, 3 * 16384 + 1234);
    const ref = o200k.encode(text, [], []).length;
    expect(both(text)).toEqual([ref, ref]);
  });

  it('hands pieces over the exact limit back to JavaScript, which cuts them as it always has', () => {
    for (const text of [
      'a'.repeat(1024),
      'a'.repeat(1025),
      'xyz ' + 'b'.repeat(5000) + ' tail',
      '='.repeat(3000) + '\n' + ' '.repeat(4000) + 'end',
      'aGVsbG8gd29ybGQ='.repeat(500),
    ]) {
      const [wasm, js] = both(text);
      expect(wasm).toBe(js);
      expect(Math.abs(wasm - o200k.encode(text, [], []).length)).toBeLessThanOrEqual(Math.ceil(wasm / 100));
    }
  });

  it('counts a stretch longer than its memory: cut at a boundary, or in JavaScript when there is none', () => {
    const lines = asciiText(11, TEXT_CAP + 50_000);
    const [a, b] = both(lines);
    expect(a).toBe(b);
    const oneLine = asciiText(12, TEXT_CAP + 50_000, false);
    const [c, d] = both(oneLine);
    expect(c).toBe(d);
    expect(c).toBeGreaterThan(0);
  });

  it('stays exact when its piece cache fills and starts afresh', () => {
    // 100,000 distinct pieces that are not single tokens (the cache keeps 65,536).
    const words: string[] = [];
    for (let i = 0; i < 100_000; i++) words.push('q' + (i * 7919).toString(36) + 'zx');
    const text = words.join(' ');
    const [a, b] = both(text);
    expect(a).toBe(b);
    const sample = words.slice(0, 2000).join(' ');
    expect(countTextTokensWith(sample, 'gpt-4o', 'wasm')).toBe(o200k.encode(sample, [], []).length);
  });
});
