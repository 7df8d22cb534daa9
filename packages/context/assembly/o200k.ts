// AssemblyScript, compiled to packages/context/vocab/o200k_count.wasm by `pnpm --filter
// @threadline/context build:wasm` (scripts/buildWasm.ts). Counts the o200k tokens of ASCII text
// exactly as src/tokens/encoder.ts does in JavaScript: the same pre-tokenizer (pretokenize.ts's
// o200kAsciiPieceEnd), the same flat vocabulary (bpe.ts's RankTable arrays, read from the same
// asset) and the same merges (mergeShort and mergeLong, lowest rank first, leftmost on ties).
// Compiled code needs no warm-up: a fresh process counts at full speed from its first piece,
// where the JavaScript scanner runs unoptimized until V8 has compiled it.
//
// Nothing is allocated here: JavaScript lays out one memory (src/tokens/wasmAscii.ts) and passes the
// offsets to init(). Pieces longer than MAX_PIECE are handed back to JavaScript (longPiece),
// which cuts them as encoder.ts does.

// Imported from JavaScript as o200k.longPiece (the module is named after this file).
declare function longPiece(start: i32, end: i32): i32;

const MAX_PIECE: i32 = 1024;
const SHORT3_BITS: u32 = 14;
const FNV_OFFSET: u32 = 0x811c9dc5;
const FNV_PRIME: u32 = 0x01000193;

const UPPER: u8 = 1;
const LOWER: u8 = 2;
const DIGIT: u8 = 4;
const SPACE: u8 = 8;
const NEWLINE: u8 = 16;
const LETTER: u8 = UPPER | LOWER;

// The layout (byte offsets into memory), set once by init().
let INFO: usize = 0; // i32 × ids × 3: offset of a token's bytes, their length, FNV-1a of them
let SLOTS: usize = 0; // i32 × slots: token id + 1 (0 = empty), open addressing on the hash
let MASK: u32 = 0;
let BYTE_TOKEN: usize = 0; // i32 × 256
let PAIR2: usize = 0; // i32 × 65536: id of the two-byte token (b0 << 8 | b1) or -1
let BYTES: usize = 0; // every token's bytes
let TEXT: usize = 0; // the ASCII text being counted, followed by three zero bytes
let CLS: usize = 0; // u8 × 128: character classes
let IDS: usize = 0; // i32 × MAX_PIECE
let RANK: usize = 0; // i32 × MAX_PIECE
let NEXT: usize = 0; // i32 × MAX_PIECE
let PREV: usize = 0; // i32 × MAX_PIECE
let ALIVE: usize = 0; // u8 × MAX_PIECE
let HR: usize = 0; // heap of mergeLong: i32 × 4 × MAX_PIECE each
let HP: usize = 0;
let HL: usize = 0;
let HQ: usize = 0;
let SHORT2: usize = 0; // u8 × 2^14: counts of two-char pieces (0 = not yet known)
let SHORT3: usize = 0; // u32 × 2^SHORT3_BITS: three-char pieces by a hash of their chars: chars << 8 | count (0 = empty)
let CACHE: usize = 0; // 16 bytes a slot: hash, key offset + 1 (0 = empty), length, count
let CACHE_MASK: u32 = 0;
let CACHE_MAX: u32 = 0;
let cacheSize: u32 = 0;
let ARENA: usize = 0; // the cached pieces' bytes
let ARENA_CAP: u32 = 0;
let arenaUsed: u32 = 0;

/** Bytes of the three-char table that init() is given (`short3`). */
export function short3Bytes(): i32 {
  return 4 << SHORT3_BITS;
}

/** Bytes of scratch after `scratch` that init() needs (CLS to HQ). */
export function scratchBytes(): i32 {
  return 128 + MAX_PIECE * 4 * 4 + MAX_PIECE + MAX_PIECE * 4 * 4 * 4;
}

export function init(
  info: usize,
  slots: usize,
  slotCount: u32,
  byteToken: usize,
  pair2: usize,
  bytes: usize,
  text: usize,
  scratch: usize,
  short2: usize,
  short3: usize,
  cache: usize,
  cacheSlots: u32,
  arena: usize,
  arenaCap: u32,
): void {
  INFO = info;
  SLOTS = slots;
  MASK = slotCount - 1;
  BYTE_TOKEN = byteToken;
  PAIR2 = pair2;
  BYTES = bytes;
  TEXT = text;
  CLS = scratch;
  IDS = CLS + 128;
  RANK = IDS + MAX_PIECE * 4;
  NEXT = RANK + MAX_PIECE * 4;
  PREV = NEXT + MAX_PIECE * 4;
  ALIVE = PREV + MAX_PIECE * 4;
  HR = ALIVE + MAX_PIECE;
  HP = HR + MAX_PIECE * 16;
  HL = HP + MAX_PIECE * 16;
  HQ = HL + MAX_PIECE * 16;
  SHORT2 = short2;
  SHORT3 = short3;
  CACHE = cache;
  CACHE_MASK = cacheSlots - 1;
  CACHE_MAX = cacheSlots >> 1;
  ARENA = arena;
  ARENA_CAP = arenaCap;
  for (let c: i32 = 0; c < 128; c++) {
    let k: u8 = 0;
    if (c >= 65 && c <= 90) k = UPPER;
    else if (c >= 97 && c <= 122) k = LOWER;
    else if (c >= 48 && c <= 57) k = DIGIT;
    else if (c == 10 || c == 13) k = SPACE | NEWLINE;
    else if (c == 32 || c == 9 || c == 11 || c == 12) k = SPACE;
    store<u8>(CLS + c, k);
  }
  // The tables and the cache start empty: the memory was just grown, and grown memory is zero.
  cacheSize = 0;
  arenaUsed = 0;
}

/** Forgets every cached piece count (the bench measures cold counting with it). */
export function reset(): void {
  memory.fill(SHORT2, 0, 1 << 14);
  memory.fill(SHORT3, 0, 4 << SHORT3_BITS);
  clearCache();
}

function clearCache(): void {
  memory.fill(CACHE, 0, (CACHE_MASK + 1) << 4);
  cacheSize = 0;
  arenaUsed = 0;
}

function ch(i: i32): u8 {
  return load<u8>(TEXT + i);
}

function cls(i: i32): u8 {
  return load<u8>(CLS + load<u8>(TEXT + i));
}

function slotOf(h: u32, mask: u32): u32 {
  return (h ^ (h >> 15)) & mask;
}

/** Length of a contraction (`'s`, `'re`, `'LL`…) at i, or 0 (pretokenize.ts's contraction). */
function contraction(i: i32): i32 {
  if (ch(i) != 39) return 0;
  const a = ch(i + 1) | 0x20;
  if (a == 115 || a == 116 || a == 109 || a == 100) return 2;
  const b = ch(i + 2) | 0x20;
  if ((a == 114 && b == 101) || (a == 118 && b == 101) || (a == 108 && b == 108)) return 3;
  return 0;
}

function letters(i: i32, n: i32): i32 {
  let j = i;
  while (j < n && cls(j) == UPPER) j++;
  while (j < n && cls(j) == LOWER) j++;
  if (j == i) return 0;
  return j - i + contraction(j);
}

/** End of the piece that starts at i in TEXT[0, n) (pretokenize.ts's o200kAsciiPieceEnd). */
function pieceEnd(i: i32, n: i32): i32 {
  const c = cls(i);
  if (c & LETTER) return i + letters(i, n);
  if (!(c & (NEWLINE | DIGIT)) && i + 1 < n && cls(i + 1) & LETTER) return i + 1 + letters(i + 1, n);
  if (c & DIGIT) {
    let j = i + 1;
    while (j < n && j < i + 3 && cls(j) == DIGIT) j++;
    return j;
  }
  const p = ch(i) == 32 ? i + 1 : i;
  if (p < n && cls(p) == 0) {
    let j = p + 1;
    while (j < n && cls(j) == 0) j++;
    while (j < n && (cls(j) & NEWLINE || ch(j) == 47)) j++;
    return j;
  }
  let w = i;
  let lastNl = -1;
  while (w < n && cls(w) & SPACE) {
    if (cls(w) & NEWLINE) lastNl = w;
    w++;
  }
  if (lastNl >= 0) return lastNl + 1;
  if (w == n || w - i == 1) return w;
  return w - 1;
}

function hashText(s: i32, e: i32): u32 {
  let h = FNV_OFFSET;
  for (let i = s; i < e; i++) h = (h ^ ch(i)) * FNV_PRIME;
  return h;
}

/**
 * Token id of the bytes a[0, la) followed by b[0, lb) whose FNV-1a hash is h, or -1: the one probe
 * of the table, for a piece of the text (lb = 0) and for a pair of tokens joined.
 */
function idOf(h: u32, a: usize, la: i32, b: usize, lb: i32): i32 {
  const len = la + lb;
  for (let i = slotOf(h, MASK); ; i = (i + 1) & MASK) {
    const id = load<i32>(SLOTS + ((<usize>i) << 2)) - 1;
    if (id < 0) return -1;
    const at = INFO + <usize>id * 12;
    if (load<u32>(at, 8) != h || load<i32>(at, 4) != len) continue;
    const o = BYTES + <usize>load<i32>(at);
    let k = 0;
    while (k < la && load<u8>(o + k) == load<u8>(a + k)) k++;
    if (k < la) continue;
    while (k < len && load<u8>(o + k) == load<u8>(b + k - la)) k++;
    if (k == len) return id;
  }
  return -1;
}

/** Token id of TEXT[s, e) whose hash is h, or -1 (RankTable.idOfAscii). */
function idOfText(s: i32, e: i32, h: u32): i32 {
  return idOf(h, TEXT + s, e - s, 0, 0);
}

/** Rank of the pair (a, b): the id of their bytes joined, or -1 (RankTable.pairRank). */
function pairRank(a: i32, b: i32): i32 {
  const ia = INFO + <usize>a * 12;
  const ib = INFO + <usize>b * 12;
  const oa = BYTES + <usize>load<i32>(ia);
  const la = load<i32>(ia, 4);
  const ob = BYTES + <usize>load<i32>(ib);
  const lb = load<i32>(ib, 4);
  if (la == 1 && lb == 1) return load<i32>(PAIR2 + ((((<usize>load<u8>(oa)) << 8) | (<usize>load<u8>(ob))) << 2));
  let h = load<u32>(ia, 8);
  for (let k = 0; k < lb; k++) h = (h ^ load<u8>(ob + k)) * FNV_PRIME;
  return idOf(h, oa, la, ob, lb);
}

function getI(base: usize, k: i32): i32 {
  return load<i32>(base + ((<usize>k) << 2));
}

function setI(base: usize, k: i32, v: i32): void {
  store<i32>(base + ((<usize>k) << 2), v);
}

/** Short pieces: rescan the pairs after each merge, as bytePairMerge does (bpe.ts's mergeShort). */
function mergeShort(count: i32): i32 {
  let n = count;
  for (let k = 0; k < n - 1; k++) setI(RANK, k, pairRank(getI(IDS, k), getI(IDS, k + 1)));
  setI(RANK, n - 1, -1);
  for (;;) {
    let best = -1;
    let bestRank: i32 = 0x7fffffff;
    for (let k = 0; k < n - 1; k++) {
      const r = getI(RANK, k);
      if (r >= 0 && r < bestRank) {
        best = k;
        bestRank = r;
      }
    }
    if (best < 0) break;
    setI(IDS, best, bestRank);
    for (let k = best + 1; k < n - 1; k++) {
      setI(IDS, k, getI(IDS, k + 1));
      setI(RANK, k, getI(RANK, k + 1));
    }
    n--;
    setI(RANK, n - 1, -1);
    if (best < n - 1) setI(RANK, best, pairRank(getI(IDS, best), getI(IDS, best + 1)));
    if (best > 0) setI(RANK, best - 1, pairRank(getI(IDS, best - 1), getI(IDS, best)));
  }
  return n;
}

let heapSize: i32 = 0;

function less(a: i32, b: i32): bool {
  const ra = getI(HR, a);
  const rb = getI(HR, b);
  return ra < rb || (ra == rb && getI(HP, a) < getI(HP, b));
}

function swapAt(base: usize, a: i32, b: i32): void {
  const x = getI(base, a);
  setI(base, a, getI(base, b));
  setI(base, b, x);
}

function swap(a: i32, b: i32): void {
  swapAt(HR, a, b);
  swapAt(HP, a, b);
  swapAt(HL, a, b);
  swapAt(HQ, a, b);
}

function push(pos: i32): void {
  const right = getI(NEXT, pos);
  if (right < 0) return;
  const r = pairRank(getI(IDS, pos), getI(IDS, right));
  if (r < 0) return;
  let i = heapSize++;
  setI(HR, i, r);
  setI(HP, i, pos);
  setI(HL, i, getI(IDS, pos));
  setI(HQ, i, getI(IDS, right));
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!less(i, parent)) break;
    swap(i, parent);
    i = parent;
  }
}

function pop(): void {
  heapSize--;
  if (heapSize == 0) return;
  swap(0, heapSize);
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heapSize && less(l, m)) m = l;
    if (r < heapSize && less(r, m)) m = r;
    if (m == i) break;
    swap(i, m);
    i = m;
  }
}

/** Long pieces: the same merges from a heap over a linked list, n log n (bpe.ts's mergeLong). */
function mergeLong(n: i32): i32 {
  for (let k = 0; k < n; k++) {
    setI(NEXT, k, k + 1 < n ? k + 1 : -1);
    setI(PREV, k, k - 1);
    store<u8>(ALIVE + k, 1);
  }
  heapSize = 0;
  for (let k = 0; k < n - 1; k++) push(k);
  let parts = n;
  while (heapSize > 0) {
    const pos = getI(HP, 0);
    const r = getI(HR, 0);
    const right = getI(NEXT, pos);
    const valid =
      load<u8>(ALIVE + pos) == 1 && right >= 0 && getI(IDS, pos) == getI(HL, 0) && getI(IDS, right) == getI(HQ, 0);
    pop();
    if (!valid) continue;
    setI(IDS, pos, r);
    store<u8>(ALIVE + right, 0);
    const after = getI(NEXT, right);
    setI(NEXT, pos, after);
    if (after >= 0) setI(PREV, after, pos);
    parts--;
    if (getI(PREV, pos) >= 0) push(getI(PREV, pos));
    push(pos);
  }
  return parts;
}

/** Token count of TEXT[s, e) (at least 2 chars, not itself a token) by merging its bytes. */
function mergeCount(s: i32, e: i32): i32 {
  const n = e - s;
  for (let k = 0; k < n; k++) setI(IDS, k, getI(BYTE_TOKEN, ch(s + k)));
  return n > 24 ? mergeLong(n) : mergeShort(n);
}

function shortCount(s: i32, e: i32): i32 {
  if (idOfText(s, e, hashText(s, e)) >= 0) return 1;
  return e - s == 2 ? 2 : mergeCount(s, e);
}

/** The piece cache's count of TEXT[s, e) with hash h, or -1. */
function cached(s: i32, e: i32, h: u32): i32 {
  const len = e - s;
  for (let i = h & CACHE_MASK; ; i = (i + 1) & CACHE_MASK) {
    const at = CACHE + ((<usize>i) << 4);
    const key = load<u32>(at, 4);
    if (key == 0) return -1;
    if (load<u32>(at) != h || load<i32>(at, 8) != len) continue;
    const o = ARENA + <usize>(key - 1);
    let k = 0;
    while (k < len && load<u8>(o + k) == ch(s + k)) k++;
    if (k == len) return load<i32>(at, 12);
  }
  return -1;
}

function remember(s: i32, e: i32, h: u32, count: i32): void {
  const len = <u32>(e - s);
  if (cacheSize >= CACHE_MAX || arenaUsed + len > ARENA_CAP) clearCache();
  let i = h & CACHE_MASK;
  while (load<u32>(CACHE + ((<usize>i) << 4), 4) != 0) i = (i + 1) & CACHE_MASK;
  const at = CACHE + ((<usize>i) << 4);
  memory.copy(ARENA + arenaUsed, TEXT + s, len);
  store<u32>(at, h);
  store<u32>(at, arenaUsed + 1, 4);
  store<i32>(at, <i32>len, 8);
  store<i32>(at, count, 12);
  arenaUsed += len;
  cacheSize++;
}

/** Token count of the piece TEXT[s, e) (encoder.ts's spanCount, ASCII). */
function pieceCount(s: i32, e: i32): i32 {
  const len = e - s;
  if (len > MAX_PIECE) return longPiece(s, e);
  if (len == 1) return 1;
  if (len == 2) {
    const at = SHORT2 + (((<usize>ch(s)) << 7) | (<usize>ch(s + 1)));
    let k = <i32>load<u8>(at);
    if (k == 0) {
      k = shortCount(s, e);
      store<u8>(at, <u8>k);
    }
    return k;
  }
  if (len == 3) {
    // A small table, direct-mapped (a clash overwrites): the few hundred three-char pieces of a
    // text touch 64 KB, where one slot per possible piece (2 MB) had a fresh process fault in
    // hundreds of pages.
    const key = ((<u32>ch(s)) << 16) | ((<u32>ch(s + 1)) << 8) | (<u32>ch(s + 2));
    const at = SHORT3 + ((<usize>((key * 0x9e3779b1) >> (32 - SHORT3_BITS))) << 2);
    const v = load<u32>(at);
    if (v != 0 && v >> 8 == key) return <i32>(v & 255);
    const k = shortCount(s, e);
    store<u32>(at, (key << 8) | (<u32>k));
    return k;
  }
  const h = hashText(s, e);
  if (idOfText(s, e, h) >= 0) return 1;
  let c = cached(s, e, h);
  if (c < 0) {
    c = mergeCount(s, e);
    remember(s, e, h, c);
  }
  return c;
}

/** Tokens of the ASCII text TEXT[0, n), piece by piece. */
export function countAscii(n: i32): i32 {
  let total = 0;
  for (let i = 0; i < n;) {
    const e = pieceEnd(i, n);
    total += pieceCount(i, e);
    i = e;
  }
  return total;
}
