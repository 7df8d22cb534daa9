import { describe, expect, it } from 'vitest';
import { getEncoding } from 'js-tiktoken';
import { countTextTokens, resetPieceCache } from '../encoder';
import { forEachO200kPiece } from '../pretokenize';
import { loadTranscripts } from '../../cli/transcripts';

/**
 * Counting per cached pre-tokenizer piece (SPEC §3.1) must give js-tiktoken's counts exactly.
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
];

describe('token counting by cached pre-tokenizer pieces', () => {
  it('splits ASCII and mixed text into exactly the pieces of the o200k regex', () => {
    for (const text of [...TRICKY, TRICKY.join('\n'), TRICKY.join('')]) {
      const ours: string[] = [];
      forEachO200kPiece(text, o200kRe, (p) => ours.push(p));
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
