import { encodingForModel, type EncodingName } from './models';
import { countAscii, countBytes, encodeAscii, encodeBytes, hashAscii, RankTable } from './bpe';
import { PieceTable } from './pieceTable';
import { forEachO200kSpan, o200kAsciiPieceEnd, o200kPieceEnd, o200kUnicodeEnd, o200kUnicodeStart } from './pretokenize';
import { loadVocab } from './vocab';
import type { WasmAscii } from './wasmAscii';
import { runOffThread } from '../pool/pool';

/** Characters per token of the documented fallback for models without a known tokenizer. */
export const APPROX_CHARS_PER_TOKEN = 4;

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
 * BPE is quadratic in the length of one pre-token, and 16,000 characters of base64 or minified
 * code without a space are one pre-token. A pre-token over MAX_EXACT_PIECE chars is cut: each
 * 256-character run of non-space or of space is a part, the stretches between too (cut every 256
 * chars if longer), and each part is pre-tokenized and encoded alone. That keeps counting linear,
 * changes a count by at most a token per cut (within 1 % of the uncut count, tested), and still
 * decodes to the exact text. Whitespace runs too: 3,000 blanks before a newline are one pre-token.
 */
/**
 * Counting is BPE per pre-tokenizer piece (the encoding's own regex split), so the count of a text
 * is the sum of its pieces' counts. A piece that is itself a token counts 1 (one probe of the rank
 * table, as js-tiktoken checks first); the counts of other pieces are cached, as the original
 * GPT-2 encoder cached its BPE, since pieces repeat (words, indentation, punctuation).
 */
/** A piece longer than this is cut (longPieceParts). */
const MAX_EXACT_PIECE = 1024;

interface PieceCounter {
  name: 'o200k_base' | 'cl100k_base';
  /**
   * The encoding's pre-tokenizer (global + unicode), compiled on first use: o200k never needs it
   * (pretokenize.ts scans its pattern by hand), cl100k does.
   */
  readonly re: RegExp;
  counts: PieceTable;
  /** The vocabulary as flat arrays (the prebuilt asset, vocab.ts). */
  ranks: RankTable;
  /**
   * Counts of 2- and 3-character ASCII pieces (0 = not yet known), indexed by their characters:
   * the most frequent pieces after single characters (` =`, `++`, ` if`, `def`), one read each.
   */
  short2: Uint8Array;
  short3: Uint8Array;
  /** The WebAssembly counter of ASCII stretches (o200k, when it loaded), else null. */
  ascii: WasmAscii | null;
  /** A long piece met by the WebAssembly counter, counted here (never back in the counter). */
  longPiece: (piece: string) => number;
}
const pieceCounters = new Map<string, PieceCounter>();

function pieceCounter(name: 'o200k_base' | 'cl100k_base'): PieceCounter {
  let pc = pieceCounters.get(name);
  if (!pc) {
    const vocab = loadVocab(name);
    if (!vocab.ranks.complete) throw new Error(`${name}: a byte has no token in the vocabulary`);
    let re: RegExp | null = null;
    pc = {
      name,
      get re() {
        return (re ??= new RegExp(vocab.patStr, 'gu'));
      },
      counts: new PieceTable(),
      ranks: vocab.ranks,
      short2: new Uint8Array(1 << 14),
      short3: new Uint8Array(1 << 21),
      ascii: vocab.ascii,
      longPiece: (piece) => countLongPiece(pieceCounter(name), piece, false),
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
    pc.ascii?.reset();
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
const RUN = 256;

/** The parts a pre-token over MAX_EXACT_PIECE chars is cut into, in order (see above). */
function longPieceParts(piece: string, part: (p: string) => void): void {
  const gap = (s: number, e: number): void => {
    if (e - s <= MAX_EXACT_PIECE) part(piece.slice(s, e));
    else for (let i = s; i < e; i += RUN) part(piece.slice(i, Math.min(e, i + RUN)));
  };
  let at = 0;
  for (const m of piece.matchAll(RUN_PIECES)) {
    if (m.index > at) gap(at, m.index);
    part(m[0]);
    at = m.index + m[0].length;
  }
  if (at < piece.length) gap(at, piece.length);
}

function countLongPiece(pc: PieceCounter, piece: string, wasm = true): number {
  let total = 0;
  longPieceParts(piece, (p) => (total += countPieces(pc.name, p, wasm)));
  return total;
}

/** The token count of a text; `wasm: false` keeps o200k's ASCII stretches in JavaScript. */
function countPieces(name: 'o200k_base' | 'cl100k_base', text: string, wasm = true): number {
  const pc = pieceCounter(name);
  const { ranks } = pc;
  let total = 0;
  if (name !== 'o200k_base') {
    for (const m of text.matchAll(pc.re)) total += spanCount(pc, ranks, text, m.index, m.index + m[0].length);
    return total;
  }
  // forEachO200kSpan, with the counting inlined: ASCII stretches by the ASCII scanner, the lines
  // around a non-ASCII character by the Unicode one.
  const n = text.length;
  for (let from = 0; from < n;) {
    const start = o200kUnicodeStart(text, from);
    total += countAsciiStretch(pc, ranks, text, from, start, wasm);
    if (start === n) break;
    const end = o200kUnicodeEnd(text, start);
    total += countUnicodeStretch(pc, ranks, text, start, end);
    from = end;
  }
  return total;
}

function countAsciiStretch(
  pc: PieceCounter,
  ranks: RankTable,
  text: string,
  from: number,
  to: number,
  wasm: boolean,
): number {
  if (wasm && pc.ascii && to > from) {
    const n = pc.ascii.count(text, from, to, pc.longPiece);
    if (n >= 0) return n;
  }
  let total = 0;
  for (let i = from; i < to;) {
    const e = o200kAsciiPieceEnd(text, i, to);
    total += spanCount(pc, ranks, text, i, e);
    i = e;
  }
  return total;
}

function countUnicodeStretch(pc: PieceCounter, ranks: RankTable, text: string, from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to;) {
    const e = o200kPieceEnd(text, i, to);
    total += spanCount(pc, ranks, text, i, e);
    i = e;
  }
  return total;
}

/** Every piece of a text as a span of it, by the encoding's pre-tokenizer. */
function forEachSpan(pc: PieceCounter, text: string, span: (s: number, e: number) => void): void {
  if (pc.name === 'o200k_base') forEachO200kSpan(text, span);
  else for (const m of text.matchAll(pc.re)) span(m.index, m.index + m[0].length);
}

/**
 * Token ids, as js-tiktoken's `encode(text, [], [])` gives them (special-token strings as text),
 * on the same flat vocabulary as counting, except that a pre-token over MAX_EXACT_PIECE chars is
 * cut as it is counted, so count = ids.length.
 */
/** Ids of the parts of long runs (see longPieceParts), per encoding; a bound on memory. */
const PART_IDS_MAX = 4096;
const partIdsByName = new Map<string, Map<string, number[]>>();

function encodePieces(pc: PieceCounter, text: string, out: number[]): void {
  let partIds = partIdsByName.get(pc.name);
  if (!partIds) partIdsByName.set(pc.name, (partIds = new Map()));
  const { ranks } = pc;
  forEachSpan(pc, text, (s, e) => {
    const len = e - s;
    if (len > MAX_EXACT_PIECE) {
      // The parts of a long run repeat (one character, padding): their ids are cached.
      longPieceParts(text.slice(s, e), (p) => {
        let ids = partIds.get(p);
        if (!ids) {
          ids = [];
          encodePieces(pc, p, ids);
          if (partIds.size >= PART_IDS_MAX) partIds.clear();
          partIds.set(p, ids);
        }
        for (const id of ids) out.push(id);
      });
      return;
    }
    let ascii = true;
    for (let i = s; i < e && ascii; i++) if (text.charCodeAt(i) > 127) ascii = false;
    if (ascii) {
      if (len === 1) out.push(ranks.byteToken[text.charCodeAt(s)]!);
      else {
        const id = ranks.idOfAscii(text, s, e, hashAscii(text, s, e));
        if (id >= 0) out.push(id);
        else encodeAscii(ranks, text, s, e, out);
      }
      return;
    }
    const bytes = utf8.encode(text.slice(s, e));
    const id = bytes.length === 1 ? ranks.byteToken[bytes[0]!]! : ranks.idOfBytes(bytes, bytes.length);
    if (id >= 0) out.push(id);
    else encodeBytes(ranks, bytes, bytes.length, out);
  });
}

const fromUtf8 = new TextDecoder();

function decodeIds(pc: PieceCounter, tokens: readonly number[]): string {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (const t of tokens) {
    const b = pc.ranks.bytesOf(t);
    if (b === null) continue;
    parts.push(b);
    total += b.length;
  }
  const all = new Uint8Array(total);
  let at = 0;
  for (const b of parts) {
    all.set(b, at);
    at += b.length;
  }
  return fromUtf8.decode(all);
}

function exact(name: 'o200k_base' | 'cl100k_base'): TokenEncoder {
  return {
    name,
    count: (text) => (text.length === 0 ? 0 : countPieces(name, text)),
    encode: (text) => {
      const out: number[] = [];
      if (text.length > 0) encodePieces(pieceCounter(name), text, out);
      return out;
    },
    decode: (tokens) => decodeIds(pieceCounter(name), tokens),
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

/**
 * How this process counts o200k's ASCII text: 'wasm' when the compiled counter is beside the
 * vocabulary asset (vocab.ts), 'js' otherwise (a browser bundle, or the asset missing).
 */
export function asciiEngine(): 'wasm' | 'js' {
  return pieceCounter('o200k_base').ascii ? 'wasm' : 'js';
}

/**
 * countTextTokens with o200k's ASCII stretches scanned and counted by one engine (tests compare
 * the two); the parts of a piece over 1,024 characters are counted as any text is.
 */
export function countTextTokensWith(text: string, model: string, engine: 'wasm' | 'js'): number {
  const name = encodingForModel(model);
  if (name === 'approx_chars_4' || text.length === 0) return encoderFor(model).count(text);
  return countPieces(name, text, engine === 'wasm');
}

// ─── Counting that yields: for the thread that answers requests (issue 25) ─────────────────────

/** Characters counted between two yields of a sliced count (a few ms of the slowest text). */
const SLICE_CHARS = 2048;

function* countLongPieceSteps(pc: PieceCounter, piece: string): Generator<void, number, void> {
  const parts: string[] = [];
  longPieceParts(piece, (p) => parts.push(p));
  let total = 0;
  for (let k = 0; k < parts.length; k++) {
    total += countPieces(pc.name, parts[k]!);
    if (k % 8 === 7) yield;
  }
  return total;
}

/** countPieces, yielding every SLICE_CHARS characters (and inside a long pre-token). */
function* countPiecesSteps(pc: PieceCounter, text: string): Generator<void, number, void> {
  const { ranks } = pc;
  const o200k = pc.name === 'o200k_base';
  let total = 0;
  let work = 0;
  const n = text.length;
  // o200k: ASCII stretches by the ASCII scanner, the lines around a non-ASCII character by the
  // Unicode one; cl100k: the regex throughout.
  for (let from = 0; from < n;) {
    const start = o200k ? o200kUnicodeStart(text, from) : from;
    for (let i = from; i < start;) {
      const e = o200kAsciiPieceEnd(text, i, start);
      total +=
        e - i > MAX_EXACT_PIECE ? yield* countLongPieceSteps(pc, text.slice(i, e)) : spanCount(pc, ranks, text, i, e);
      work += e - i;
      i = e;
      if (work >= SLICE_CHARS) {
        work = 0;
        yield;
      }
    }
    if (start === n) break;
    const end = o200k ? o200kUnicodeEnd(text, start) : n;
    const spans = o200k ? scannedSpans(text, start, end) : regexSpans(pc.re, text, start, end);
    for (const [s, e] of spans) {
      total +=
        e - s > MAX_EXACT_PIECE ? yield* countLongPieceSteps(pc, text.slice(s, e)) : spanCount(pc, ranks, text, s, e);
      work += e - s;
      if (work >= SLICE_CHARS) {
        work = 0;
        yield;
      }
    }
    from = end;
  }
  return total;
}

/** The o200k pieces of text[start, end) (a stretch between safe boundaries) as spans. */
function* scannedSpans(text: string, start: number, end: number): Generator<[number, number]> {
  for (let i = start; i < end;) {
    const e = o200kPieceEnd(text, i, end);
    yield [i, e];
    i = e;
  }
}

/** The regex's pieces of text[start, end) as spans. */
function* regexSpans(re: RegExp, text: string, start: number, end: number): Generator<[number, number]> {
  const stretch = start === 0 && end === text.length ? text : text.slice(start, end);
  for (const m of stretch.matchAll(re)) yield [start + m.index, start + m.index + m[0].length];
}

/**
 * The count of countTextTokens, as steps: each `next()` does a bounded amount of work (a few
 * thousand characters), so a caller can interleave it with other work. Same result as
 * countTextTokens.
 */
export function* countTextTokensSteps(text: string, model: string): Generator<void, number, void> {
  const enc = encoderFor(model);
  if (enc.name === 'approx_chars_4' || text.length === 0) return enc.count(text);
  return yield* countPiecesSteps(pieceCounter(enc.name), text);
}

/** Below this a text is counted in one go (well under a millisecond of the slowest text). */
export const SLICED_COUNT_MIN_CHARS = 8192;

export interface SliceOptions {
  /** Work between two yields to the event loop (ms of wall clock; default 8). */
  sliceMs?: number;
  signal?: AbortSignal;
}

/** Gives the event loop a turn (I/O, timers, other requests) before going on. */
export const yieldToEventLoop = (): Promise<void> =>
  new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));

/** Runs steps, yielding to the event loop whenever a slice has run `sliceMs`. */
export async function runSteps<T>(steps: Generator<void, T, void>, opts: SliceOptions = {}): Promise<T> {
  const sliceMs = opts.sliceMs ?? 8;
  let t0 = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - t0 >= sliceMs) {
      await yieldToEventLoop();
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
      t0 = performance.now();
    }
  }
}

/** From this many characters a count runs on the work pool (pool/pool.ts), not in slices here. */
export const OFF_THREAD_COUNT_CHARS = 32_000;

/**
 * countTextTokens without holding the thread: a long text is counted on the work pool, or in
 * slices between which the event loop runs (a medium one, or when no worker can run).
 */
export async function countTextTokensAsync(text: string, model: string, opts?: SliceOptions): Promise<number> {
  if (text.length < SLICED_COUNT_MIN_CHARS || encodingForModel(model) === 'approx_chars_4')
    return countTextTokens(text, model);
  const sliced = (): Promise<number> => runSteps(countTextTokensSteps(text, model), opts);
  if (text.length < OFF_THREAD_COUNT_CHARS) return sliced();
  const n = await runOffThread<number>('countText', { text, model }, { inThread: sliced });
  // A worker does not stop mid-count: a caller that gave up gets what the slices would give it.
  if (opts?.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
  return n;
}

/**
 * A quick upper-leaning estimate (UTF-8 bytes / 3, at least chars / 4): what a text over a size
 * shows until its exact count, made in the background, replaces it.
 */
export function estimateTextTokens(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return Math.ceil(Math.max(bytes / 3, text.length / APPROX_CHARS_PER_TOKEN));
}
