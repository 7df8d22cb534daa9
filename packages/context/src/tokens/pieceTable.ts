/** Cached pieces at most; past it the table starts afresh (a bound on memory, not an LRU). */
const PIECE_CACHE_MAX = 200_000;

/** FNV-1a over UTF-16 units: the hash the piece table is keyed by (callers compute it in place). */
export function hashChars(t: string, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
  return h;
}

/**
 * The piece-count cache: open addressing on the FNV-1a hash of a piece's characters, compared in
 * place (`startsWith` at the span), so a hit makes no string; only a miss slices its piece.
 */
export class PieceTable {
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

  /** The cached count of t[s, e) with hash h (hashChars), or -1. */
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
      let i = hashChars(k, 0, k.length) & this.mask;
      while (this.keys[i] !== undefined) i = (i + 1) & this.mask;
      this.keys[i] = k;
      this.counts[i] = counts[j]!;
    }
  }
}
