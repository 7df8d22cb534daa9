import type { RankTables } from './bpe';
import { o200kSafeBoundaryBefore } from './pretokenize';

/**
 * o200k counting of ASCII text in WebAssembly (packages/context/assembly/o200k.ts, compiled to
 * vocab/o200k_count.wasm): the same scanner, vocabulary and merges as encoder.ts's JavaScript,
 * without its warm-up, so a fresh process counts a megabyte at full speed from the start. The
 * vocabulary asset is read straight into the module's memory, and the RankTable that JavaScript
 * uses for everything else (non-ASCII pieces, encoding) views those same bytes: one copy.
 *
 * The memory is laid out once and never grows (growing would detach the RankTable's views):
 * the vocabulary, the text being counted (TEXT_CAP bytes; a longer stretch is counted in parts
 * cut at safe boundaries), the merges' scratch, the short-piece tables and a piece cache.
 */
export interface WasmAscii {
  /**
   * Tokens of the ASCII text t[from, to), or -1 when it cannot be counted here (a stretch longer
   * than TEXT_CAP with no safe boundary to cut it at): the caller counts it in JavaScript. A piece
   * over the exact limit is handed to `longPiece`, which must not call back into this counter.
   */
  count(t: string, from: number, to: number, longPiece: (piece: string) => number): number;
  /** Forgets every cached piece count (the bench measures cold counting with it). */
  reset(): void;
}

/**
 * The WebAssembly API as used here: Node has it, but its typings (without the DOM library)
 * declare no Module, Instance or Memory.
 */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
export interface WasmModule {
  readonly compiled: unknown;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => unknown;
  Instance: new (module: unknown, imports: object) => { exports: unknown };
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** The module compiled from its bytes, or null when this runtime has no WebAssembly. */
export function compileWasm(bytes: Uint8Array): WasmModule | null {
  return wasmApi ? { compiled: new wasmApi.Module(bytes) } : null;
}

interface Exports {
  memory: WasmMemory;
  scratchBytes(): number;
  short3Bytes(): number;
  init(...offsets: number[]): void;
  reset(): void;
  countAscii(n: number): number;
}

/** Characters counted in one call at most; a longer ASCII stretch is cut at safe boundaries. */
export const TEXT_CAP = 1 << 20;
// 16 bytes a slot, half of them used before the cache is cleared (16,384 pieces): 512 KB, most of
// which a fresh process touches (a page fault per 4 KB). 2 MB cost ~1,000 faults counting the
// largest fixture, whose pieces that are not tokens fit in this size too.
const CACHE_SLOTS = 1 << 15;
const ARENA_BYTES = 1 << 21;
const PAGE = 65536;
const align = (n: number): number => Math.ceil(n / 16) * 16;

/**
 * The counter of a compiled module. `load` fills the vocabulary asset (`vocabBytes` long) into the
 * given view of the module's memory and returns its tables, as views of that same memory.
 */
export function wasmAsciiCounter(
  module: WasmModule,
  vocabBytes: number,
  load: (into: Uint8Array) => RankTables,
): { counter: WasmAscii; tables: RankTables } {
  // The text and callback of the count in progress, for the imported longPiece.
  let text = '';
  let base = 0;
  let onLong: (piece: string) => number = () => 0;
  const instance = new wasmApi!.Instance(module.compiled, {
    o200k: { longPiece: (s: number, e: number) => onLong(text.slice(base + s, base + e)) },
  });
  const ex = instance.exports as unknown as Exports;
  // Everything goes above the module's own memory (empty today: the counter has no data), in
  // pages grown here, which start zeroed: its tables and cache need no clearing.
  const start = ex.memory.buffer.byteLength;
  let at = align(start + vocabBytes);
  const textAt = at;
  at = align(at + TEXT_CAP + 4);
  const scratch = at;
  at = align(at + ex.scratchBytes());
  const short2 = at;
  at = align(at + (1 << 14));
  const short3 = at;
  at += ex.short3Bytes();
  const cache = at;
  at += CACHE_SLOTS * 16;
  const arena = at;
  at += ARENA_BYTES;
  ex.memory.grow(Math.ceil(at / PAGE) - start / PAGE);
  const buffer = ex.memory.buffer;
  const tables = load(new Uint8Array(buffer, start, vocabBytes));
  for (const a of [tables.info, tables.slots, tables.byteToken, tables.pair2, tables.bytes])
    if (a.buffer !== buffer) throw new Error('the vocabulary must be read into the counter’s memory');
  ex.init(
    tables.info.byteOffset,
    tables.slots.byteOffset,
    tables.slots.length,
    tables.byteToken.byteOffset,
    tables.pair2.byteOffset,
    tables.bytes.byteOffset,
    textAt,
    scratch,
    short2,
    short3,
    cache,
    CACHE_SLOTS,
    arena,
    ARENA_BYTES,
  );
  const view = new Uint8Array(buffer, textAt, TEXT_CAP + 4);
  const utf8 = new TextEncoder();

  const countPart = (t: string, s: number, e: number): number => {
    const n = e - s;
    if (utf8.encodeInto(t.substring(s, e), view).written !== n) throw new Error('not ASCII text');
    // The scanner may look up to three characters past the end (a contraction): none is there.
    view[n] = 0;
    view[n + 1] = 0;
    view[n + 2] = 0;
    text = t;
    base = s;
    return ex.countAscii(n);
  };

  const counter: WasmAscii = {
    count(t, from, to, longPiece) {
      onLong = longPiece;
      let total = 0;
      for (let s = from; s < to;) {
        let e = to;
        if (e - s > TEXT_CAP) {
          e = o200kSafeBoundaryBefore(t, s, s + TEXT_CAP);
          if (e < 0) return -1;
        }
        total += countPart(t, s, e);
        s = e;
      }
      text = '';
      return total;
    },
    reset: () => ex.reset(),
  };
  return { counter, tables };
}
