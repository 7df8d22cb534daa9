import { describe, expect, it } from 'vitest';
import { getEncoding } from 'js-tiktoken';
import { countTextTokens, encoderFor, resetPieceCache } from '../encoder';
import { forEachO200kPiece } from '../pretokenize';
import { loadTranscripts } from '../../cli/transcripts';

/**
 * Counting per cached pre-tokenizer piece must give js-tiktoken's counts exactly.
 * Plain js-tiktoken is the reference: `encode(text, [], [])` (special tokens counted as text).
 */
const o200k = getEncoding('o200k_base');
const cl100k = getEncoding('cl100k_base');
const o200kRe = new RegExp((o200k as unknown as { patStr: string }).patStr, 'gu');

const TRICKY = [
  "It's they're WE'LL I'd HTTPServer getX x'S can't'",
  'a  b   c\t\td \n\n  e\r\n\r\n   f   ',
  '   leading and trailing   ',
  ')\n//comment\n/* x */ a/b//c\n\n/\n',
  '12345 1.2.3 v10 0x1F 9999999 a1b22c333',
  '((foo)) [bar]: {baz}; <qux> "quoted" \'single\' `tick`',
  'CamelCaseWords ALLCAPS lower MixedUPPER aB Ab',
  '\t\n\v\f\r mixed whitespace \u000b\u000c end',
  'naïve café — “quotes” 中文字符 emoji 🙂 done\nnext line ascii\nmore ascii',
  '<|endoftext|> special tokens count as text <|fim_prefix|>',
  '--------------------------------------------------------------------------------\n==========',
  'x'.repeat(600) + ' ' + 'ab1'.repeat(300),
  // Long runs (the heap merge past 24 bytes): punctuation, mixed punctuation, whitespace.
  '='.repeat(300) + '\n' + '-'.repeat(1000) + '\n+' + '*/'.repeat(200) + '\n' + '#'.repeat(25),
  ' '.repeat(700) + 'x' + '\t'.repeat(300) + '\n'.repeat(200) + ' \t\n'.repeat(150) + 'y',
  'a'.repeat(25) + ' ' + 'Ab'.repeat(200) + ' ' + '0123456789'.repeat(40),
  // CJK, emoji (ZWJ sequences, skin tones, flags, keycaps), combining marks, lone surrogates.
  '中文分词测试：这是一个很长的句子，没有空格也没有标点符号一直写下去直到结束。'.repeat(8),
  '👩‍👩‍👧‍👦 👍🏽 🇨🇳🇺🇸 1️⃣ e\u0301 ñ Ω ß',
  'lone \ud800 high, lone \udc00 low, pair \ud83d\ude00, reversed \ude00\ud83d end',
  // A non-ASCII character deep in a diff: the split must fall where no piece spans it.
  '+a)\n/é\n+x  \n  \né\n' + '+line = 1\n'.repeat(50) + ' ctx é\n-old\r\n/ré\n' + '+tail\n'.repeat(20),
];

/** Seeded texts of `min` to `min + spread - 1` strings of the pool each (a fixed sequence per seed). */
function randomTexts(
  pool: readonly string[],
  o: { seed: number; rounds: number; min: number; spread: number },
): string[] {
  let seed = o.seed;
  const rnd = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const texts: string[] = [];
  for (let round = 0; round < o.rounds; round++) {
    let text = '';
    const len = o.min + Math.floor(rnd() * o.spread);
    for (let i = 0; i < len; i++) text += pool[Math.floor(rnd() * pool.length)]!;
    texts.push(text);
  }
  return texts;
}

/** The hand-written scanner splits a text into exactly the regex's pieces. */
function expectRegexSplit(text: string): void {
  const ours: string[] = [];
  forEachO200kPiece(text, (p) => ours.push(p));
  expect(ours, JSON.stringify(text)).toEqual([...text.matchAll(o200kRe)].map((m) => m[0]));
}

describe('token counting by cached pre-tokenizer pieces', () => {
  it('splits ASCII and mixed text into exactly the pieces of the o200k regex', () => {
    for (const text of [...TRICKY, TRICKY.join('\n'), TRICKY.join('')]) {
      const ours: string[] = [];
      forEachO200kPiece(text, (p) => ours.push(p));
      expect(ours, JSON.stringify(text.slice(0, 60))).toEqual([...text.matchAll(o200kRe)].map((m) => m[0]));
    }
  });

  it('counts exactly like plain js-tiktoken on tricky strings, for o200k and cl100k, cold and warm', () => {
    for (const pass of ['cold', 'warm']) {
      if (pass === 'cold') resetPieceCache();
      for (const text of TRICKY) {
        expect(countTextTokens(text, 'gpt-4o'), `${pass} o200k ${text.slice(0, 40)}`).toBe(
          o200k.encode(text, [], []).length,
        );
        expect(countTextTokens(text, 'gpt-4'), `${pass} cl100k ${text.slice(0, 40)}`).toBe(
          cl100k.encode(text, [], []).length,
        );
      }
    }
  });

  it('splits diff-like text with rare non-ASCII characters exactly like the regex', () => {
    // Newline then whitespace, `/` or another newline is no place to split: each line below
    // makes a too-permissive boundary cut a piece in two.
    const lines = ['+ok\n', '+a)\n', '/é/x\n', '  \n', '\r\n', ' ctx\n', '-old ü\n', '+x\n\n/y\n', '😀\n', '+\t\n'];
    let seed = 7;
    const rnd = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let round = 0; round < 20; round++) {
      let text = '';
      for (let i = 0; i < 300; i++) text += lines[Math.floor(rnd() * lines.length)]!;
      const ours: string[] = [];
      forEachO200kPiece(text, (p) => ours.push(p));
      expect(ours).toEqual([...text.matchAll(o200kRe)].map((m) => m[0]));
      resetPieceCache();
      expect(countTextTokens(text, 'gpt-4o')).toBe(o200k.encode(text, [], []).length);
    }
  });

  it('splits at a space after an ASCII letter or digit around non-ASCII text exactly like the regex', () => {
    // The stretch the Unicode scanner reads ends at such a space: words, digits, contractions and
    // whitespace runs on both sides of it must come out as the regex cuts them.
    const pool = [
      'ab',
      'Q',
      '7',
      '123',
      ' ',
      '  ',
      "'s",
      "'LL",
      "'",
      'é',
      'ø',
      'Ω',
      '中',
      '—',
      '(',
      '/',
      '\n',
      '\t',
      '\u00a0',
      '🙂',
    ];
    randomTexts(pool, { seed: 5, rounds: 400, min: 2, spread: 60 }).forEach((text, round) => {
      expectRegexSplit(text);
      if (round % 20 === 0) expect(countTextTokens(text, 'gpt-4o')).toBe(o200k.encode(text, [], []).length);
    });
  });

  it('splits any Unicode text exactly like the regex (marks, Lt/Lm/Lo, astral letters and digits, Unicode spaces)', () => {
    // Characters where the pattern's classes overlap or differ from ASCII: a mark is in both letter
    // sets and may be a prefix; Lt is upper only; Lm/Lo are both; 𝐀/𝟎 are astral (a surrogate
    // pair each); U+00A0/U+3000/U+2028 are \s, U+0085 is not; lone surrogates are code points.
    const pool = [
      'a',
      'Z',
      'q',
      "'",
      's',
      'S',
      'l',
      'L',
      're',
      ' ',
      '  ',
      '\t',
      '\n',
      '\r\n',
      '/',
      '1',
      '12345',
      '.',
      ',',
      '+',
      '\u0301',
      '\u0308',
      'é',
      'É',
      'ǅ',
      'ʰ',
      '中',
      'א',
      'ß',
      'Ω',
      '𝐀',
      '𝐚',
      '𝟎',
      '٣',
      'Ⅻ',
      '½',
      '\u00a0',
      '\u3000',
      '\u2028',
      '\u0085',
      '🙂',
      '👍🏽',
      '\ud800',
      '\udc00',
      '—',
      '“',
      '✓',
      'ー',
      'ㄅ',
      '\u200d',
      '\ufe0f',
    ];
    for (const text of randomTexts(pool, { seed: 11, rounds: 300, min: 1, spread: 40 })) expectRegexSplit(text);
    resetPieceCache();
    const all = pool.join('x') + pool.join(' ') + pool.join('');
    expect(countTextTokens(all, 'gpt-4o')).toBe(o200k.encode(all, [], []).length);
  });

  it('counts every text of the 18 transcripts exactly like plain js-tiktoken (o200k)', () => {
    resetPieceCache();
    let texts = 0;
    for (const t of loadTranscripts()) {
      for (const m of t.messages) {
        for (const text of [m.content ?? '', ...(m.tool_calls ?? []).map((c) => c.function.arguments)]) {
          if (text === '') continue;
          texts++;
          const plain = o200k.encode(text, [], []).length;
          if (countTextTokens(text, 'gpt-4o') !== plain)
            expect(countTextTokens(text, 'gpt-4o'), `${t.name}: ${text.slice(0, 80)}`).toBe(plain);
        }
      }
    }
    expect(texts).toBeGreaterThan(4000);
  }, 120_000);
});

describe('pathological runs (issue 25)', () => {
  // gpt-tokenizer's o200k is an independent exact BPE (no cuts): the reference for "within 1 %".
  const rnd = (n: number, alphabet: string): string => {
    let s = '';
    let x = 12345;
    for (let i = 0; i < n; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      s += alphabet[x % alphabet.length];
    }
    return s;
  };
  const CASES: Array<[string, string]> = [
    ['one repeated character', 'a'.repeat(12_000)],
    ['letters without a space', rnd(12_000, 'abcdefghijklmnopqrstuvwxyz')],
    ['punctuation run', rnd(12_000, '{}();.,=+-*&^%$#@!')],
    ['one repeated non-ASCII letter', 'é'.repeat(6_000)],
    ['CJK without a space', rnd(6_000, '的一是不了人我在有他这为之大来以个中上们')],
    ['minified code', 'function(a){return a+1};var b=c.d(e,f);'.replace(/ /g, '').repeat(300)],
    ['base64', Buffer.from(rnd(9_000, 'abcdefghijklmnopqrstuvwxyz0123456789')).toString('base64')],
    ['blank padding', ' '.repeat(12_000) + 'x'],
  ];
  it.each(CASES)(
    '%s: cut into bounded pieces, within one percent of the exact count, equal to the ids',
    async (_, text) => {
      const { encode } = await import('gpt-tokenizer/encoding/o200k_base');
      resetPieceCache();
      const n = countTextTokens(text, 'gpt-4o');
      const exact = encode(text).length;
      expect(Math.abs(n - exact) / exact).toBeLessThanOrEqual(0.01);
      expect(n).toBe(encoderFor('gpt-4o').encode(text)?.length);
    },
  );
});
