import { getEncoding, type Tiktoken } from 'js-tiktoken';
import { encodingForModel, type EncodingName } from './models';
import { forEachO200kPiece, forEachO200kSpan } from './pretokenize';

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
  counts: PieceTable;
}
const pieceCounters = new Map<string, PieceCounter>();

function pieceCounter(name: 'o200k_base' | 'cl100k_base'): PieceCounter {
  let pc = pieceCounters.get(name);
  if (!pc) {
    // js-tiktoken keeps the pattern as `patStr`; without it we fall back to plain encoding.
    const pat = (bpe(name) as unknown as { patStr?: unknown }).patStr;
    pc = { re: typeof pat === 'string' ? new RegExp(pat, 'gu') : null, counts: new PieceTable() };
    pieceCounters.set(name, pc);
  }
  return pc;
}

/** Forget the cached piece counts and learnt pair ranks (the bench measures cold counting with it). */
export function resetPieceCache(): void {
  for (const pc of pieceCounters.values()) pc.counts.clear();
  for (const t of mergeTables.values()) {
    t?.pairs.clear();
    t?.keys.clear();
  }
}

const utf8 = new TextEncoder();

interface MergeTables {
  /** Rank-table keys are comma-joined bytes. */
  ranks: Map<string, number>;
  /** Token id → its bytes. */
  bytesOf: Map<number, Uint8Array>;
  /** Token id of each single byte. */
  byteToken: number[];
  /** Token id → its rank-table key. */
  keys: Map<number, string>;
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
            keys: new Map(),
          }
        : null;
    mergeTables.set(enc, t);
  }
  return t;
}

/** The rank-table key of a token id ("b1,b2,…"), built once per id. */
function keyOf(t: MergeTables, id: number): string | null {
  let k = t.keys.get(id);
  if (k === undefined) {
    const bytes = t.bytesOf.get(id);
    if (!bytes) return null;
    t.keys.set(id, (k = bytes.join(',')));
  }
  return k;
}

function pairRank(t: MergeTables, a: number, b: number): number {
  let inner = t.pairs.get(a);
  if (inner === undefined) t.pairs.set(a, (inner = new Map()));
  let r = inner.get(b);
  if (r === undefined) {
    const ka = keyOf(t, a);
    const kb = keyOf(t, b);
    r = ka !== null && kb !== null ? (t.ranks.get(`${ka},${kb}`) ?? -1) : -1;
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
  const n = bytes.length;
  if (n === 1) return 1;
  if (t.ranks.has(bytes.join(','))) return 1; // as js-tiktoken: a piece that is one token
  const ids = new Int32Array(n);
  for (let k = 0; k < n; k++) ids[k] = t.byteToken[bytes[k]!]!;
  return n > 24 ? mergeLong(t, ids) : mergeShort(t, ids);
}

/** Short pieces: rescan the pairs after each merge (what bytePairMerge does). */
function mergeShort(t: MergeTables, ids: Int32Array): number {
  let n = ids.length;
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

/**
 * Long pieces (a line of `=`, a long identifier): the same merges, lowest rank first and leftmost
 * on ties, taken from a heap of (rank, position) over a linked list of parts, so a piece costs
 * n log n instead of n². Stale heap entries are recognised by the ids they were made for.
 */
function mergeLong(t: MergeTables, ids: Int32Array): number {
  const n = ids.length;
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    next[k] = k + 1 < n ? k + 1 : -1;
    prev[k] = k - 1;
  }
  // Heap of entries e: hr[e] rank, hp[e] left position, hl/hr2 the ids it was made for.
  const cap = 4 * n;
  const hr = new Int32Array(cap);
  const hp = new Int32Array(cap);
  const hl = new Int32Array(cap);
  const hq = new Int32Array(cap);
  let size = 0;
  const less = (a: number, b: number): boolean => hr[a]! < hr[b]! || (hr[a] === hr[b] && hp[a]! < hp[b]!);
  const swap = (a: number, b: number): void => {
    for (const arr of [hr, hp, hl, hq]) {
      const x = arr[a]!;
      arr[a] = arr[b]!;
      arr[b] = x;
    }
  };
  const push = (pos: number): void => {
    const right = next[pos]!;
    if (right < 0) return;
    const r = pairRank(t, ids[pos]!, ids[right]!);
    if (r < 0) return;
    let i = size++;
    hr[i] = r;
    hp[i] = pos;
    hl[i] = ids[pos]!;
    hq[i] = ids[right]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(i, parent)) break;
      swap(i, parent);
      i = parent;
    }
  };
  const pop = (): void => {
    size--;
    if (size === 0) return;
    swap(0, size);
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && less(l, m)) m = l;
      if (r < size && less(r, m)) m = r;
      if (m === i) break;
      swap(i, m);
      i = m;
    }
  };
  for (let k = 0; k < n - 1; k++) push(k);
  let parts = n;
  const alive = new Uint8Array(n).fill(1);
  while (size > 0) {
    const pos = hp[0]!;
    const rank = hr[0]!;
    const right = next[pos]!;
    const valid = alive[pos] === 1 && right >= 0 && ids[pos] === hl[0] && ids[right] === hq[0];
    pop();
    if (!valid) continue;
    ids[pos] = rank;
    alive[right] = 0;
    next[pos] = next[right]!;
    if (next[right]! >= 0) prev[next[right]!] = pos;
    parts--;
    if (prev[pos]! >= 0) push(prev[pos]!);
    push(pos);
  }
  return parts;
}

/**
 * The piece-count cache: open addressing on an FNV-1a hash of the piece's characters, compared in
 * place (`startsWith` at the span), so a hit makes no string; only a miss slices its piece.
 */
class PieceTable {
  private keys: (string | undefined)[] = [];
  private counts = new Int32Array(0);
  private mask = 0;
  size = 0;

  constructor() {
    this.clear();
  }

  clear(): void {
    this.keys = new Array<string | undefined>(1 << 14);
    this.counts = new Int32Array(1 << 14);
    this.mask = (1 << 14) - 1;
    this.size = 0;
  }

  /** The cached count of t[s, e) with hash h, or -1. */
  get(t: string, s: number, e: number, h: number): number {
    const len = e - s;
    for (let i = h & this.mask; ; i = (i + 1) & this.mask) {
      const k = this.keys[i];
      if (k === undefined) return -1;
      if (k.length === len && t.startsWith(k, s)) return this.counts[i]!;
    }
  }

  set(piece: string, h: number, count: number): void {
    if (this.size >= PIECE_CACHE_MAX) this.clear();
    if ((this.size + 1) * 2 > this.keys.length) this.grow();
    let i = h & this.mask;
    while (this.keys[i] !== undefined) i = (i + 1) & this.mask;
    this.keys[i] = piece;
    this.counts[i] = count;
    this.size++;
  }

  private grow(): void {
    const keys = this.keys;
    const counts = this.counts;
    this.keys = new Array<string | undefined>(keys.length * 2);
    this.counts = new Int32Array(keys.length * 2);
    this.mask = keys.length * 2 - 1;
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j];
      if (k === undefined) continue;
      let i = hashSpan(k, 0, k.length) & this.mask;
      while (this.keys[i] !== undefined) i = (i + 1) & this.mask;
      this.keys[i] = k;
      this.counts[i] = counts[j]!;
    }
  }
}

function hashSpan(t: string, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function countPieces(name: 'o200k_base' | 'cl100k_base', text: string): number {
  const pc = pieceCounter(name);
  if (pc.re === null) return encodeLinear(bpe(name), text).length;
  const enc = bpe(name);
  const table = pc.counts;
  let n = 0;
  const add = (s: number, e: number): void => {
    const h = hashSpan(text, s, e);
    let c = table.get(text, s, e, h);
    if (c < 0) {
      const piece = text.slice(s, e);
      c = piece.length > MAX_EXACT_PIECE ? encodeLinear(enc, piece).length : bpeCount(enc, piece);
      table.set(piece, h, c);
    }
    n += c;
  };
  if (name === 'o200k_base') forEachO200kSpan(text, pc.re, add);
  else for (const m of text.matchAll(pc.re)) add(m.index, m.index + m[0].length);
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
