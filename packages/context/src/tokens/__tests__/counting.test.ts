import { describe, expect, it } from 'vitest';
import { getEncoding } from 'js-tiktoken';
import { countTextTokens, encoderFor } from '../encoder';
import { loadTranscripts } from '../../cli/transcripts';

/**
 * The counting contract: counts are js-tiktoken's (`encode(text, [], [])`, special tokens counted
 * as text), except that a pre-token over 1,024 characters is counted in cuts (within 1 %).
 */
const o200k = getEncoding('o200k_base');
const cl100k = getEncoding('cl100k_base');

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

describe('counts are js-tiktoken', () => {
  it('on tricky strings, for o200k and cl100k', () => {
    for (const text of TRICKY) {
      expect(countTextTokens(text, 'gpt-4o'), `o200k ${text.slice(0, 40)}`).toBe(o200k.encode(text, [], []).length);
      expect(countTextTokens(text, 'gpt-4'), `cl100k ${text.slice(0, 40)}`).toBe(cl100k.encode(text, [], []).length);
    }
  });

  it('on texts with long runs whose pre-tokens are all short (counted in stretches, not whole)', () => {
    const texts = [
      'a-'.repeat(2_000) + ' tail',
      ' x'.repeat(300) + '='.repeat(700) + '\n' + 'word '.repeat(400),
      '1234567890'.repeat(200) + '\n' + '\t \n'.repeat(300) + 'end',
    ];
    for (const text of texts) {
      expect(countTextTokens(text, 'gpt-4o')).toBe(o200k.encode(text, [], []).length);
      expect(encoderFor('gpt-4o').encode(text)).toEqual(o200k.encode(text, [], []));
      expect(countTextTokens(text, 'gpt-4')).toBe(cl100k.encode(text, [], []).length);
    }
  });

  it('on every text of the 18 transcripts (o200k)', () => {
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
      const n = countTextTokens(text, 'gpt-4o');
      const exact = encode(text).length;
      expect(Math.abs(n - exact) / exact).toBeLessThanOrEqual(0.01);
      expect(n).toBe(encoderFor('gpt-4o').encode(text)?.length);
    },
  );
});

it('cuts a long pre-token of punctuation, line breaks and slashes (o200k lets `[\\r\\n/]*` follow punctuation)', async () => {
  // No run of whitespace or of non-space is long, yet `.\n/\n/…` is one 3,001-character pre-token:
  // it is cut every 256 characters like any other, not handed whole to the quadratic merge.
  const { encode } = await import('gpt-tokenizer/encoding/o200k_base');
  const piece = '.' + '\n/'.repeat(1_500);
  let expected = encode('x').length;
  for (let i = 0; i < piece.length; i += 256) expected += encode(piece.slice(i, i + 256)).length;
  expect(countTextTokens('x' + piece, 'gpt-4o')).toBe(expected);
  expect(encoderFor('gpt-4o').encode('x' + piece)).toHaveLength(expected);
});
