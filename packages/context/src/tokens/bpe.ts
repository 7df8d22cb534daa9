/**
 * js-tiktoken's byte-pair merge, counted without its string keys. js-tiktoken looks every pair up
 * as `bytes.join(',')` in a Map of 200,000 strings, which made cold counting ~5 MB/s. Here the
 * vocabulary is copied once into flat typed arrays with an open-addressing table on an FNV-1a hash
 * of each token's bytes; a pair's rank is found by continuing the left token's hash over the right
 * token's bytes, so no lookup allocates. The merge order is js-tiktoken's (bytePairMerge: lowest
 * rank first, leftmost on ties) and every part is a token id, so counts are identical.
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a of t[s, e) read as bytes (only called on ASCII, where a char code is its byte). */
export function hashAscii(t: string, s: number, e: number): number {
  let h = FNV_OFFSET;
  for (let i = s; i < e; i++) h = Math.imul(h ^ t.charCodeAt(i), FNV_PRIME);
  return h;
}

function hashBytes(b: Uint8Array, s: number, e: number, seed = FNV_OFFSET): number {
  let h = seed;
  for (let i = s; i < e; i++) h = Math.imul(h ^ b[i]!, FNV_PRIME);
  return h;
}

/** js-tiktoken's `textMap` as the asset's two arrays (bytes in id order, lengths per id). */
export function flattenTextMap(textMap: ReadonlyMap<number, Uint8Array>): {
  tokenBytes: Uint8Array;
  lengths: Uint8Array;
} {
  let maxId = 0;
  let total = 0;
  for (const [id, b] of textMap) {
    if (id > maxId) maxId = id;
    if (b.length > 255) throw new Error(`token ${id} is ${b.length} bytes long`);
    total += b.length;
  }
  const lengths = new Uint8Array(maxId + 1);
  for (const [id, b] of textMap) lengths[id] = b.length;
  const offsets = new Int32Array(maxId + 2);
  for (let id = 0; id <= maxId; id++) offsets[id + 1] = offsets[id]! + lengths[id]!;
  const tokenBytes = new Uint8Array(total);
  for (const [id, b] of textMap) tokenBytes.set(b, offsets[id]!);
  return { tokenBytes, lengths };
}

/** Slot of a hash: FNV's low bits alone cluster, so fold the high ones in. */
const slotOf = (h: number, mask: number): number => (h ^ (h >>> 15)) & mask;

/** A RankTable's arrays (see the fields below). */
export interface RankTables {
  bytes: Uint8Array;
  info: Int32Array;
  slots: Int32Array;
  byteToken: Int32Array;
  pair2: Int32Array;
}

/**
 * Laid out for few cache misses and for loading as is from a file: a probe reads one slot (an id)
 * and that token's hash beside its offset and length; only a hash match reads its bytes. Most
 * probes are pairs that do not merge, which usually end at an empty slot.
 */
export class RankTable {
  /** All tokens' bytes, back to back. */
  private readonly bytes: Uint8Array;
  /** Per token id, 3 ints: offset of its bytes, their length, the FNV-1a state after them. */
  private readonly info: Int32Array;
  /** Open addressing on the hash, one int a slot: the token's id + 1 (0 = empty); its hash is in `info`. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Token id of each single byte (every byte is a token in the encodings we count). */
  readonly byteToken: Int32Array;
  /**
   * Token id of each two-byte token by its bytes (b0 << 8 | b1), else -1: a piece's first merges
   * are pairs of single bytes, answered here (256 KB) without hashing or probing the big table.
   */
  private readonly pair2: Int32Array;

  /** From its tables as they are (the prebuilt asset's views: nothing is computed). */
  constructor(t: RankTables) {
    this.bytes = t.bytes;
    this.info = t.info;
    this.slots = t.slots;
    this.mask = t.slots.length - 1;
    this.byteToken = t.byteToken;
    this.pair2 = t.pair2;
  }

  /** The tables, to write them out (vocab.ts). */
  get tables(): RankTables {
    const { bytes, info, slots, byteToken, pair2 } = this;
    return { bytes, info, slots, byteToken, pair2 };
  }

  /**
   * From the vocabulary as two flat arrays: every token's bytes back to back, in id order, and
   * each id's length (0 = no such id). The hash table is built here (what the asset saves).
   */
  static build(tokenBytes: Uint8Array, lengths: Uint8Array): RankTable {
    const n = lengths.length;
    let tokens = 0;
    for (let id = 0; id < n; id++) if (lengths[id]! > 0) tokens++;
    const info = new Int32Array(n * 3);
    let size = 1;
    while (size < tokens * 2) size <<= 1;
    const slots = new Int32Array(size);
    const mask = size - 1;
    const byteToken = new Int32Array(256).fill(-1);
    const pair2 = new Int32Array(1 << 16).fill(-1);
    let at = 0;
    for (let id = 0; id < n; id++) {
      const len = lengths[id]!;
      if (len === 0) continue;
      let h = FNV_OFFSET;
      for (let k = at; k < at + len; k++) h = Math.imul(h ^ tokenBytes[k]!, FNV_PRIME);
      info[id * 3] = at;
      info[id * 3 + 1] = len;
      info[id * 3 + 2] = h;
      let i = slotOf(h, mask);
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = id + 1;
      if (len === 1) byteToken[tokenBytes[at]!] = id;
      else if (len === 2) pair2[(tokenBytes[at]! << 8) | tokenBytes[at + 1]!] = id;
      at += len;
    }
    return new RankTable({ bytes: tokenBytes, info, slots, byteToken, pair2 });
  }

  /** From js-tiktoken's `textMap` (rank → bytes): what the vocabulary asset is generated from. */
  static fromTextMap(textMap: ReadonlyMap<number, Uint8Array>): RankTable {
    const { tokenBytes, lengths } = flattenTextMap(textMap);
    return RankTable.build(tokenBytes, lengths);
  }

  /** Number of ids (the largest id + 1). */
  get size(): number {
    return this.info.length / 3;
  }

  /** The bytes of a token id (a view, not a copy), or null. */
  bytesOf(id: number): Uint8Array | null {
    if (id < 0 || id >= this.size || this.info[id * 3 + 1] === 0) return null;
    const o = this.info[id * 3]!;
    return this.bytes.subarray(o, o + this.info[id * 3 + 1]!);
  }

  /** Every byte has a token (else callers fall back to js-tiktoken). */
  get complete(): boolean {
    return this.byteToken.every((id) => id >= 0);
  }

  /** Token id of the ASCII text t[s, e) whose hash is h, or -1. */
  idOfAscii(t: string, s: number, e: number, h: number): number {
    const { slots, info, bytes, mask } = this;
    for (let i = slotOf(h, mask); ; i = (i + 1) & mask) {
      const id = slots[i]! - 1;
      if (id < 0) return -1;
      if (info[id * 3 + 2] !== h || info[id * 3 + 1] !== e - s) continue;
      const o = info[id * 3]! - s;
      let k = s;
      while (k < e && bytes[o + k] === t.charCodeAt(k)) k++;
      if (k === e) return id;
    }
  }

  /** Token id of the bytes b[0, n), or -1. */
  idOfBytes(b: Uint8Array, n: number): number {
    const { slots, info, bytes, mask } = this;
    const h = hashBytes(b, 0, n);
    for (let i = slotOf(h, mask); ; i = (i + 1) & mask) {
      const id = slots[i]! - 1;
      if (id < 0) return -1;
      if (info[id * 3 + 2] !== h || info[id * 3 + 1] !== n) continue;
      const o = info[id * 3]!;
      let k = 0;
      while (k < n && bytes[o + k] === b[k]) k++;
      if (k === n) return id;
    }
  }

  /** Rank of the pair (a, b): the id of their bytes joined, or -1 when they do not merge. */
  pairRank(a: number, b: number): number {
    const { slots, info, bytes, mask } = this;
    const oa = info[a * 3]!;
    const la = info[a * 3 + 1]!;
    const ob = info[b * 3]!;
    const lb = info[b * 3 + 1]!;
    if (la === 1 && lb === 1) return this.pair2[(bytes[oa]! << 8) | bytes[ob]!]!;
    let h = info[a * 3 + 2]!;
    for (let k = ob; k < ob + lb; k++) h = Math.imul(h ^ bytes[k]!, FNV_PRIME);
    for (let i = slotOf(h, mask); ; i = (i + 1) & mask) {
      const id = slots[i]! - 1;
      if (id < 0) return -1;
      if (info[id * 3 + 2] !== h || info[id * 3 + 1] !== la + lb) continue;
      const o = info[id * 3]!;
      let k = 0;
      while (k < la && bytes[o + k] === bytes[oa + k]) k++;
      if (k < la) continue;
      while (k < la + lb && bytes[o + k] === bytes[ob + k - la]) k++;
      if (k === la + lb) return id;
    }
  }
}

// Scratch for the merges (one count at a time: JavaScript is single-threaded here).
let ids = new Int32Array(64);
let rank = new Int32Array(64);

function scratch(n: number): void {
  if (ids.length >= n) return;
  let size = ids.length;
  while (size < n) size *= 2;
  ids = new Int32Array(size);
  rank = new Int32Array(size);
}

/** Token count of the ASCII text t[s, e) (at least 2 chars, not itself a token). */
export function countAscii(table: RankTable, t: string, s: number, e: number): number {
  const n = e - s;
  scratch(n);
  for (let k = 0; k < n; k++) ids[k] = table.byteToken[t.charCodeAt(s + k)]!;
  return merge(table, n);
}

/** Token count of the bytes b[0, n) (at least 2, not itself a token). */
export function countBytes(table: RankTable, b: Uint8Array, n: number): number {
  scratch(n);
  for (let k = 0; k < n; k++) ids[k] = table.byteToken[b[k]!]!;
  return merge(table, n);
}

/** Token ids of the ASCII text t[s, e) (at least 2 chars, not itself a token), pushed onto out. */
export function encodeAscii(table: RankTable, t: string, s: number, e: number, out: number[]): void {
  const n = e - s;
  scratch(n);
  for (let k = 0; k < n; k++) ids[k] = table.byteToken[t.charCodeAt(s + k)]!;
  mergeInto(table, n, out);
}

/** Token ids of the bytes b[0, n) (at least 2, not itself a token), pushed onto out. */
export function encodeBytes(table: RankTable, b: Uint8Array, n: number, out: number[]): void {
  scratch(n);
  for (let k = 0; k < n; k++) ids[k] = table.byteToken[b[k]!]!;
  mergeInto(table, n, out);
}

function mergeInto(table: RankTable, n: number, out: number[]): void {
  if (n > 24) {
    mergeLong(table, ids.subarray(0, n), out);
    return;
  }
  const m = mergeShort(table, n);
  for (let k = 0; k < m; k++) out.push(ids[k]!);
}

function merge(table: RankTable, n: number): number {
  return n > 24 ? mergeLong(table, ids.subarray(0, n)) : mergeShort(table, n);
}

/** Short pieces: rescan the pairs after each merge, as bytePairMerge does (on `ids`). */
function mergeShort(table: RankTable, count: number): number {
  let n = count;
  // rank[k]: rank of ids[k] and ids[k + 1] merged, -1 when they do not merge.
  for (let k = 0; k < n - 1; k++) rank[k] = table.pairRank(ids[k]!, ids[k + 1]!);
  rank[n - 1] = -1;
  for (;;) {
    let best = -1;
    let bestRank = 0x7fffffff;
    for (let k = 0; k < n - 1; k++) {
      const r = rank[k]!;
      if (r >= 0 && r < bestRank) {
        best = k;
        bestRank = r;
      }
    }
    if (best < 0) break;
    ids[best] = bestRank;
    // Plain loops: copyWithin's builtin call costs more than moving a few ints.
    for (let k = best + 1; k < n - 1; k++) {
      ids[k] = ids[k + 1]!;
      rank[k] = rank[k + 1]!;
    }
    n--;
    rank[n - 1] = -1;
    if (best < n - 1) rank[best] = table.pairRank(ids[best]!, ids[best + 1]!);
    if (best > 0) rank[best - 1] = table.pairRank(ids[best - 1]!, ids[best]!);
  }
  return n;
}

/**
 * Long pieces (a line of `=`, a long identifier): the same merges, lowest rank first and leftmost
 * on ties, taken from a heap of (rank, position) over a linked list of parts, so a piece costs
 * n log n instead of n². Stale heap entries are recognised by the ids they were made for.
 */
function mergeLong(table: RankTable, ids: Int32Array, out?: number[]): number {
  const n = ids.length;
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    next[k] = k + 1 < n ? k + 1 : -1;
    prev[k] = k - 1;
  }
  // Heap of entries: hr rank, hp left position, hl/hq the ids it was made for.
  const cap = 4 * n;
  const hr = new Int32Array(cap);
  const hp = new Int32Array(cap);
  const hl = new Int32Array(cap);
  const hq = new Int32Array(cap);
  let size = 0;
  const less = (a: number, b: number): boolean => hr[a]! < hr[b]! || (hr[a] === hr[b] && hp[a]! < hp[b]!);
  const swap1 = (arr: Int32Array, a: number, b: number): void => {
    const x = arr[a]!;
    arr[a] = arr[b]!;
    arr[b] = x;
  };
  // No array of the four per swap: a fresh process runs this before it is optimized.
  const swap = (a: number, b: number): void => {
    swap1(hr, a, b);
    swap1(hp, a, b);
    swap1(hl, a, b);
    swap1(hq, a, b);
  };
  const push = (pos: number): void => {
    const right = next[pos]!;
    if (right < 0) return;
    const r = table.pairRank(ids[pos]!, ids[right]!);
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
    const r = hr[0]!;
    const right = next[pos]!;
    const valid = alive[pos] === 1 && right >= 0 && ids[pos] === hl[0] && ids[right] === hq[0];
    pop();
    if (!valid) continue;
    ids[pos] = r;
    alive[right] = 0;
    next[pos] = next[right]!;
    if (next[right]! >= 0) prev[next[right]!] = pos;
    parts--;
    if (prev[pos]! >= 0) push(prev[pos]!);
    push(pos);
  }
  // The leftmost part always stays at 0 (a merge keeps its left position).
  if (out) for (let k = 0; k >= 0; k = next[k]!) out.push(ids[k]!);
  return parts;
}
