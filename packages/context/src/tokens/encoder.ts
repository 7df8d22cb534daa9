import { getEncoding, type Tiktoken } from 'js-tiktoken';
import { encodingForModel, type EncodingName } from './models';
import { forEachO200kPiece } from './pretokenize';

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
 */
const LONG_RUN = /\S{257}/;
const RUN_PIECE = /(\S{256})/;

function encodeLinear(enc: Tiktoken, text: string): number[] {
  // Disallowing nothing: a transcript that quotes "<|endoftext|>" must count, not throw.
  if (!LONG_RUN.test(text)) return enc.encode(text, [], []);
  const out: number[] = [];
  for (const part of text.split(RUN_PIECE)) if (part.length > 0) for (const t of enc.encode(part, [], [])) out.push(t);
  return out;
}

/**
 * Counting is BPE per pre-tokenizer piece (the encoding's own regex split), so the count of a text
 * is the sum of its pieces' counts. Pieces repeat (words, indentation, punctuation), so their
 * counts are cached, as the original GPT-2 encoder cached its BPE: identical counts, and cold
 * counting no longer pays js-tiktoken's per-piece byte encoding and rank lookups for every word.
 */
const PIECE_CACHE_MAX = 200_000;
/** A piece longer than this is counted with the 256-character cut of `encodeLinear`. */
const MAX_EXACT_PIECE = 1024;

interface PieceCounter {
  re: RegExp | null;
  counts: Map<string, number>;
}
const pieceCounters = new Map<string, PieceCounter>();

function pieceCounter(name: 'o200k_base' | 'cl100k_base'): PieceCounter {
  let pc = pieceCounters.get(name);
  if (!pc) {
    // js-tiktoken keeps the pattern as `patStr`; without it we fall back to plain encoding.
    const pat = (bpe(name) as unknown as { patStr?: unknown }).patStr;
    pc = { re: typeof pat === 'string' ? new RegExp(pat, 'gu') : null, counts: new Map() };
    pieceCounters.set(name, pc);
  }
  return pc;
}

/** Forget the cached piece counts and learnt pair ranks (the bench measures cold counting with it). */
export function resetPieceCache(): void {
  for (const pc of pieceCounters.values()) pc.counts.clear();
  for (const t of mergeTables.values()) t?.pairs.clear();
}

const utf8 = new TextEncoder();

interface MergeTables {
  /** Rank-table keys are comma-joined bytes. */
  ranks: Map<string, number>;
  /** Token id → its bytes. */
  bytesOf: Map<number, Uint8Array>;
  /** Token id of each single byte. */
  byteToken: number[];
  /** left id → right id → id of the concatenation, or -1: learnt as pieces are merged. */
  pairs: Map<number, Map<number, number>>;
}
const mergeTables = new Map<Tiktoken, MergeTables | null>();

/** js-tiktoken's rank tables (`rankMap`, `textMap`), or null if its internals changed. */
function tablesOf(enc: Tiktoken): MergeTables | null {
  let t = mergeTables.get(enc);
  if (t === undefined) {
    const inner = enc as unknown as { rankMap?: unknown; textMap?: unknown };
    const ranks = inner.rankMap;
    const bytesOf = inner.textMap;
    t =
      ranks instanceof Map && bytesOf instanceof Map
        ? {
            ranks: ranks as Map<string, number>,
            bytesOf: bytesOf as Map<number, Uint8Array>,
            byteToken: Array.from({ length: 256 }, (_, i) => (ranks.get(String(i)) as number | undefined) ?? -1),
            pairs: new Map(),
          }
        : null;
    mergeTables.set(enc, t);
  }
  return t;
}

function pairRank(t: MergeTables, a: number, b: number): number {
  let inner = t.pairs.get(a);
  if (inner === undefined) t.pairs.set(a, (inner = new Map()));
  let r = inner.get(b);
  if (r === undefined) {
    const ab = t.bytesOf.get(a);
    const bb = t.bytesOf.get(b);
    r = ab && bb ? (t.ranks.get(`${ab.join(',')},${bb.join(',')}`) ?? -1) : -1;
    inner.set(b, r);
  }
  return r;
}

/**
 * Token count of one piece: js-tiktoken's own merge (bytePairMerge: lowest rank first, leftmost
 * on ties) over its own rank table, with parts held as token ids and the rank of a pair of ids
 * learnt once (pairs repeat across pieces far more than pieces do). Without `encode`'s per-call
 * regex construction and per-lookup string keys, which dominated cache misses.
 */
function bpeCount(enc: Tiktoken, piece: string): number {
  const t = tablesOf(enc);
  if (t === null) return enc.encode(piece, [], []).length;
  const bytes = utf8.encode(piece);
  let n = bytes.length;
  if (n === 1) return 1;
  if (t.ranks.has(bytes.join(','))) return 1;
  const ids = new Int32Array(n);
  for (let k = 0; k < n; k++) ids[k] = t.byteToken[bytes[k]!]!;
  // rank[k]: rank of ids[k] and ids[k + 1] merged, -1 when they do not merge.
  const rank = new Int32Array(n);
  for (let k = 0; k < n - 1; k++) rank[k] = pairRank(t, ids[k]!, ids[k + 1]!);
  rank[n - 1] = -1;
  for (;;) {
    let best = -1;
    for (let k = 0; k < n - 1; k++) {
      const r = rank[k]!;
      if (r >= 0 && (best < 0 || r < rank[best]!)) best = k;
    }
    if (best < 0) break;
    ids[best] = rank[best]!;
    ids.copyWithin(best + 1, best + 2, n);
    rank.copyWithin(best + 1, best + 2, n);
    n--;
    rank[n - 1] = -1;
    if (best < n - 1) rank[best] = pairRank(t, ids[best]!, ids[best + 1]!);
    if (best > 0) rank[best - 1] = pairRank(t, ids[best - 1]!, ids[best]!);
  }
  return n;
}

function countPieces(name: 'o200k_base' | 'cl100k_base', text: string): number {
  const pc = pieceCounter(name);
  if (pc.re === null) return encodeLinear(bpe(name), text).length;
  const enc = bpe(name);
  const counts = pc.counts;
  let n = 0;
  const add = (piece: string): void => {
    let c = counts.get(piece);
    if (c === undefined) {
      c = piece.length > MAX_EXACT_PIECE ? encodeLinear(enc, piece).length : bpeCount(enc, piece);
      if (counts.size >= PIECE_CACHE_MAX) counts.clear();
      counts.set(piece, c);
    }
    n += c;
  };
  if (name === 'o200k_base') forEachO200kPiece(text, pc.re, add);
  else for (const m of text.matchAll(pc.re)) add(m[0]);
  return n;
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
