import { getEncoding, type Tiktoken } from 'js-tiktoken';
import { encodingForModel, type EncodingName } from './models';
import { countAscii, countBytes, hashAscii, RankTable } from './bpe';
import { PieceTable } from './pieceTable';
import { forEachO200kPiece, o200kAsciiPieceEnd, o200kRegexEnd, o200kRegexStart } from './pretokenize';

/** Characters per token of the documented fallback for models without a known tokenizer. */
export const APPROX_CHARS_PER_TOKEN = 4;

const encoders = new Map<EncodingName, Tiktoken>();

/** The BPE for an encoding, built once per process (building o200k takes ~100 ms). */
function bpe(name: 'o200k_base' | 'cl100k_base'): Tiktoken {
  let enc = encoders.get(name);
  if (!enc) {
    enc = getEncoding(name);
    encoders.set(name, enc);
  }
  return enc;
}

/** A model's tokenizer: exact BPE where we know it, chars/4 otherwise. */
export interface TokenEncoder {
  readonly name: EncodingName;
  /** Token count of plain text (special-token strings are counted as text, never rejected). */
  count(text: string): number;
  /** Token ids, or null for the approximate encoding (callers then work in characters). */
  encode(text: string): number[] | null;
  decode(tokens: number[]): string;
}

const approx: TokenEncoder = {
  name: 'approx_chars_4',
  count: (text) => Math.ceil(text.length / APPROX_CHARS_PER_TOKEN),
  encode: () => null,
  decode: () => '',
};

/**
 * js-tiktoken's BPE is quadratic in the length of one pre-token: 16,000 characters of base64 or
 * minified code without a space take ~17 s, and a tool output like that would stall the turn.
 * Such runs are cut into 256-character pieces and encoded piece by piece, which keeps counting
 * linear, changes a count by at most a token per cut, and still decodes to the exact text.
 * Whitespace runs too: 3,000 blanks before a newline are one pre-token (0.6 s whole, 7 s at 10,000).
 */
const LONG_RUN = /\S{257}|\s{257}/;
const RUN_PIECE = /(\S{256}|\s{256})/;

function encodeLinear(enc: Tiktoken, text: string): number[] {
  // Disallowing nothing: a transcript that quotes "<|endoftext|>" must count, not throw.
  if (!LONG_RUN.test(text)) return enc.encode(text, [], []);
  const out: number[] = [];
  for (const part of text.split(RUN_PIECE)) if (part.length > 0) for (const t of enc.encode(part, [], [])) out.push(t);
  return out;
}

/**
 * Counting is BPE per pre-tokenizer piece (the encoding's own regex split), so the count of a text
 * is the sum of its pieces' counts. A piece that is itself a token counts 1 (one probe of the rank
 * table, as js-tiktoken checks first); the counts of other pieces are cached, as the original
 * GPT-2 encoder cached its BPE, since pieces repeat (words, indentation, punctuation).
 */
/** A piece longer than this is counted with the 256-character cut of `encodeLinear`. */
const MAX_EXACT_PIECE = 1024;

interface PieceCounter {
  name: 'o200k_base' | 'cl100k_base';
  enc: Tiktoken;
  re: RegExp | null;
  counts: PieceTable;
  /** The vocabulary as flat arrays, or null if js-tiktoken's internals changed. */
  ranks: RankTable | null;
  /**
   * Counts of 2- and 3-character ASCII pieces (0 = not yet known), indexed by their characters:
   * the most frequent pieces after single characters (` =`, `++`, ` if`, `def`), one read each.
   */
  short2: Uint8Array;
  short3: Uint8Array;
}
const pieceCounters = new Map<string, PieceCounter>();

function pieceCounter(name: 'o200k_base' | 'cl100k_base'): PieceCounter {
  let pc = pieceCounters.get(name);
  if (!pc) {
    // js-tiktoken keeps the pattern as `patStr` and token bytes as `textMap`; without them we
    // fall back to plain encoding.
    const enc = bpe(name);
    const inner = enc as unknown as { patStr?: unknown; textMap?: unknown };
    let ranks = inner.textMap instanceof Map ? new RankTable(inner.textMap as Map<number, Uint8Array>) : null;
    if (ranks !== null && !ranks.complete) ranks = null;
    pc = {
      name,
      enc,
      re: typeof inner.patStr === 'string' ? new RegExp(inner.patStr, 'gu') : null,
      counts: new PieceTable(),
      ranks,
      short2: new Uint8Array(1 << 14),
      short3: new Uint8Array(1 << 21),
    };
    pieceCounters.set(name, pc);
  }
  return pc;
}

/** Forget the cached piece counts (the bench measures cold counting with it). */
export function resetPieceCache(): void {
  for (const pc of pieceCounters.values()) {
    pc.counts.clear();
    pc.short2.fill(0);
    pc.short3.fill(0);
  }
}

const utf8 = new TextEncoder();

/** Token count of the piece t[s, e) that is not a single ASCII character, cached or not. */
function countPiece(ranks: RankTable, t: string, s: number, e: number, ascii: boolean): number {
  if (ascii) return countAscii(ranks, t, s, e);
  const bytes = utf8.encode(t.slice(s, e));
  if (bytes.length === 1 || ranks.idOfBytes(bytes, bytes.length) >= 0) return 1;
  return countBytes(ranks, bytes, bytes.length);
}

function shortCount(ranks: RankTable, t: string, s: number, e: number): number {
  if (ranks.idOfAscii(t, s, e, hashAscii(t, s, e)) >= 0) return 1;
  // Two bytes that are not one token cannot merge (their only pair is the whole).
  return e - s === 2 ? 2 : countAscii(ranks, t, s, e);
}

/**
 * Token count of the piece t[s, e). A plain function of its arguments (no closure), called from
 * the counting loops directly, so the hot path stays monomorphic and cheap to optimize.
 */
function spanCount(pc: PieceCounter, ranks: RankTable, t: string, s: number, e: number): number {
  const len = e - s;
  if (len > MAX_EXACT_PIECE) return countLongPiece(pc, t.slice(s, e));
  const c0 = t.charCodeAt(s);
  if (len === 1 && c0 < 128) return 1; // every byte is a token
  if (len <= 3 && c0 < 128) {
    const c1 = t.charCodeAt(s + 1);
    const c2 = len === 3 ? t.charCodeAt(s + 2) : 0;
    if (c1 < 128 && c2 < 128) {
      const table = len === 2 ? pc.short2 : pc.short3;
      const i = len === 2 ? (c0 << 7) | c1 : (c0 << 14) | (c1 << 7) | c2;
      let k = table[i]!;
      if (k === 0) table[i] = k = shortCount(ranks, t, s, e);
      return k;
    }
  }
  // One pass: the FNV-1a hash of the chars (= of the bytes when ASCII) and whether all are ASCII.
  let h = 0x811c9dc5;
  let or = 0;
  for (let i = s; i < e; i++) {
    const c = t.charCodeAt(i);
    or |= c;
    h = Math.imul(h ^ c, 0x01000193);
  }
  const ascii = or < 128;
  if (ascii && len <= MAX_EXACT_PIECE && ranks.idOfAscii(t, s, e, h) >= 0) return 1;
  let c = pc.counts.get(t, s, e, h);
  if (c < 0) {
    c = countPiece(ranks, t, s, e, ascii);
    pc.counts.set(t.slice(s, e), h, c);
  }
  return c;
}

const RUN_PIECES = /\S{256}|\s{256}/g;

/**
 * A pre-token over MAX_EXACT_PIECE chars (one character repeated, base64 or minified code without
 * a break): cut as encodeLinear cuts it (each 256-char run of non-space or of space, and the
 * stretches between), each part pre-tokenized and counted alone. Equal to encodeLinear's length,
 * linear in the piece (repeated parts are piece-cache hits), and within 1 % of the uncut count.
 */
function countLongPiece(pc: PieceCounter, piece: string): number {
  let total = 0;
  let at = 0;
  for (const m of piece.matchAll(RUN_PIECES)) {
    if (m.index > at) total += countPieces(pc.name, piece.slice(at, m.index));
    total += countPieces(pc.name, m[0]);
    at = m.index + m[0].length;
  }
  if (at < piece.length) total += countPieces(pc.name, piece.slice(at));
  return total;
}

function countPieces(name: 'o200k_base' | 'cl100k_base', text: string): number {
  const pc = pieceCounter(name);
  const { re, ranks } = pc;
  if (re === null || ranks === null) return encodeLinear(pc.enc, text).length;
  let total = 0;
  if (name !== 'o200k_base') {
    for (const m of text.matchAll(re)) total += spanCount(pc, ranks, text, m.index, m.index + m[0].length);
    return total;
  }
  // forEachO200kSpan, with the counting inlined: ASCII stretches by the scanner, the lines around
  // a non-ASCII character by the regex.
  const n = text.length;
  for (let from = 0; from < n;) {
    const start = o200kRegexStart(text, from);
    total += countAsciiStretch(pc, ranks, text, from, start);
    if (start === n) break;
    const end = o200kRegexEnd(text, start);
    total += countRegexStretch(pc, ranks, re, text, start, end);
    from = end;
  }
  return total;
}

function countAsciiStretch(pc: PieceCounter, ranks: RankTable, text: string, from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to;) {
    const e = o200kAsciiPieceEnd(text, i, to);
    total += spanCount(pc, ranks, text, i, e);
    i = e;
  }
  return total;
}

function countRegexStretch(
  pc: PieceCounter,
  ranks: RankTable,
  re: RegExp,
  text: string,
  from: number,
  to: number,
): number {
  let total = 0;
  for (const m of text.slice(from, to).matchAll(re))
    total += spanCount(pc, ranks, text, from + m.index, from + m.index + m[0].length);
  return total;
}

/** Some pre-token is longer than MAX_EXACT_PIECE (only then can BPE go quadratic). */
const HUGE_RUN = new RegExp(`\\S{${MAX_EXACT_PIECE + 1}}|\\s{${MAX_EXACT_PIECE + 1}}`);

function forEachPiece(name: 'o200k_base' | 'cl100k_base', text: string, piece: (p: string) => void): void {
  const re = pieceCounter(name).re;
  if (re === null) piece(text);
  else if (name === 'o200k_base') forEachO200kPiece(text, re, piece);
  else for (const m of text.matchAll(re)) piece(m[0]);
}

/**
 * Token ids: js-tiktoken's, exactly, except that a single pre-token over MAX_EXACT_PIECE chars
 * is encoded in 256-character cuts (encodeLinear), as it is counted, so count = ids.length.
 */
function encodeExact(name: 'o200k_base' | 'cl100k_base', text: string): number[] {
  const enc = bpe(name);
  if (!HUGE_RUN.test(text)) return enc.encode(text, [], []);
  const out: number[] = [];
  let chunk = '';
  const flush = (): void => {
    if (chunk !== '') for (const t of enc.encode(chunk, [], [])) out.push(t);
    chunk = '';
  };
  forEachPiece(name, text, (p) => {
    if (p.length <= MAX_EXACT_PIECE) chunk += p;
    else {
      flush();
      for (const t of encodeLinear(enc, p)) out.push(t);
    }
  });
  flush();
  return out;
}

function exact(name: 'o200k_base' | 'cl100k_base'): TokenEncoder {
  return {
    name,
    count: (text) => (text.length === 0 ? 0 : countPieces(name, text)),
    encode: (text) => encodeExact(name, text),
    decode: (tokens) => bpe(name).decode(tokens),
  };
}

const byName: Record<EncodingName, () => TokenEncoder> = {
  o200k_base: () => exact('o200k_base'),
  cl100k_base: () => exact('cl100k_base'),
  approx_chars_4: () => approx,
};

const cache = new Map<EncodingName, TokenEncoder>();

export function encoderFor(model: string): TokenEncoder {
  const name = encodingForModel(model);
  let enc = cache.get(name);
  if (!enc) {
    enc = byName[name]();
    cache.set(name, enc);
  }
  return enc;
}

/** Token count of a plain string for a model. */
export function countTextTokens(text: string, model: string): number {
  return encoderFor(model).count(text);
}
