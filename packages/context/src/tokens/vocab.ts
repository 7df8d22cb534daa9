/**
 * The vocabulary as a prebuilt binary asset (packages/context/vocab/<encoding>.bin), so a fresh
 * process maps a file instead of parsing js-tiktoken's base64 ranks (~0.9 s for o200k). o200k's
 * file holds RankTable's own arrays (the hash table included), read as typed-array views of the
 * file with nothing computed; cl100k's holds only token bytes and lengths (the table is built at
 * load, ~100 ms, for the older models that use it), to keep both files under 10 MB in git.
 * `pnpm --filter @threadline/context build:vocab` regenerates them from js-tiktoken
 * (scripts/buildVocab.ts); a test checks they are js-tiktoken's vocabulary.
 *
 * Layout (little-endian): "TLVOCAB2", u32 header length, header JSON, zero padding to a multiple
 * of 4, then the sections: `tables`: info (i32 × ids × 3), slots (i32 × slots), byteToken
 * (i32 × 256), pair2 (i32 × 65536), token bytes; `compact`: lengths (u8 × ids), token bytes.
 *
 * Beside o200k's file is its WebAssembly counter (o200k_count.wasm, wasmAscii.ts): when it loads,
 * the file is read straight into the counter's memory and the RankTable views it there.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flattenTextMap, RankTable, type RankTables } from './bpe';
import { compileWasm, wasmAsciiCounter, type WasmAscii } from './wasmAscii';

export type VocabName = 'o200k_base' | 'cl100k_base';

const MAGIC = 'TLVOCAB2';

export interface VocabHeader {
  encoding: VocabName;
  patStr: string;
  kind: 'tables' | 'compact';
  /** Number of ids (largest id + 1). */
  ids: number;
  /** Bytes of all tokens together. */
  bytes: number;
  /** Slots of the hash table (tables only, else 0). */
  slots: number;
  /** Where it was generated from ("js-tiktoken"). */
  source: string;
}

/** The vocabulary as js-tiktoken has it, flattened: token bytes in id order and each id's length. */
export interface FlatVocab {
  encoding: VocabName;
  patStr: string;
  lengths: Uint8Array;
  tokenBytes: Uint8Array;
}

const pad4 = (n: number): number => (n + 3) & ~3;

export function encodeVocab(v: FlatVocab, kind: VocabHeader['kind']): Uint8Array {
  const base = { encoding: v.encoding, patStr: v.patStr, kind, ids: v.lengths.length, bytes: v.tokenBytes.length };
  const sections: Uint8Array[] = [];
  let slots = 0;
  if (kind === 'tables') {
    const t = RankTable.build(v.tokenBytes, v.lengths).tables;
    slots = t.slots.length;
    for (const a of [t.info, t.slots, t.byteToken, t.pair2])
      sections.push(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  } else sections.push(v.lengths);
  sections.push(v.tokenBytes);
  const header = new TextEncoder().encode(JSON.stringify({ ...base, slots, source: 'js-tiktoken' }));
  const start = pad4(12 + header.length);
  const out = new Uint8Array(start + sections.reduce((n, s) => n + s.length, 0));
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(8, header.length, true);
  out.set(header, 12);
  let at = start;
  for (const s of sections) {
    out.set(s, at);
    at += s.length;
  }
  return out;
}

export interface DecodedVocab {
  header: VocabHeader;
  ranks: RankTable;
}

export function decodeVocab(file: Uint8Array): DecodedVocab {
  if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) throw new Error('the vocabulary asset is little-endian');
  // Int32Array views need an offset that is a multiple of 4.
  const buf = file.byteOffset % 4 === 0 ? file : file.slice();
  if (new TextDecoder().decode(buf.subarray(0, 8)) !== MAGIC) throw new Error('not a vocabulary file');
  const n = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(buf.subarray(12, 12 + n))) as VocabHeader;
  let at = buf.byteOffset + pad4(12 + n);
  const i32 = (count: number): Int32Array => {
    const a = new Int32Array(buf.buffer, at, count);
    at += count * 4;
    return a;
  };
  const u8 = (count: number): Uint8Array => {
    const a = new Uint8Array(buf.buffer, at, count);
    at += count;
    return a;
  };
  let ranks: RankTable;
  if (header.kind === 'tables') {
    const info = i32(header.ids * 3);
    const slots = i32(header.slots);
    const byteToken = i32(256);
    const pair2 = i32(1 << 16);
    ranks = new RankTable({ info, slots, byteToken, pair2, bytes: u8(header.bytes) });
  } else {
    const lengths = u8(header.ids);
    ranks = RankTable.build(u8(header.bytes), lengths);
  }
  if (at !== buf.byteOffset + buf.byteLength) throw new Error('vocabulary file of the wrong size');
  return { header, ranks };
}

/** From js-tiktoken's ranks (the generator, the test, and the fallback when no asset is found). */
export function vocabFromJsTiktoken(name: VocabName): FlatVocab {
  const require = createRequire(import.meta.url);
  const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
  const ranks = require(`js-tiktoken/ranks/${name}`) as ConstructorParameters<typeof Tiktoken>[0];
  const enc = new Tiktoken(ranks) as unknown as { textMap: Map<number, Uint8Array>; patStr: string };
  const { tokenBytes, lengths } = flattenTextMap(enc.textMap);
  return { encoding: name, patStr: enc.patStr, lengths, tokenBytes };
}

/** How each encoding's asset is stored (see above). */
export const VOCAB_KIND: Record<VocabName, VocabHeader['kind']> = { o200k_base: 'tables', cl100k_base: 'compact' };

/**
 * Where the asset may be: beside the sources (packages/context/vocab), or beside a bundle that
 * copied it (the desktop's out/main/vocab, see electron.vite.config.ts), or THREADLINE_VOCAB_DIR.
 */
function candidates(name: VocabName): string[] {
  const out: string[] = [];
  const dir = process.env.THREADLINE_VOCAB_DIR;
  if (dir) out.push(`${dir}/${name}.bin`);
  for (const rel of [`../../vocab/${name}.bin`, `./vocab/${name}.bin`]) {
    try {
      out.push(fileURLToPath(new URL(rel, import.meta.url)));
    } catch {
      // import.meta.url is not a file: URL (a bundle in a browser): no file candidates.
    }
  }
  return out;
}

export interface LoadedVocab {
  ranks: RankTable;
  patStr: string;
  /** 'asset' (the prebuilt file) or 'js-tiktoken' (built from its ranks in this process). */
  from: 'asset' | 'js-tiktoken';
  /** The WebAssembly counter of ASCII text (o200k, beside the asset), else null. */
  ascii: WasmAscii | null;
}

/** The compiled o200k counter, beside the vocabulary asset (`pnpm … build:wasm`). */
export const WASM_FILE = 'o200k_count.wasm';

function readInto(file: string, into: Uint8Array): void {
  const fd = openSync(file, 'r');
  try {
    for (let at = 0; at < into.length;) {
      const n = readSync(fd, into, at, into.length - at, at);
      if (n === 0) throw new Error(`${file}: shorter than it was`);
      at += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The vocabulary read straight into the WebAssembly counter's memory (wasmAscii.ts), when the
 * counter is beside it and this runtime has WebAssembly; null otherwise.
 */
function loadWithCounter(file: string, name: VocabName): LoadedVocab | null {
  const wasm = join(dirname(file), WASM_FILE);
  if (name !== 'o200k_base' || !existsSync(wasm)) return null;
  const module = compileWasm(readFileSync(wasm));
  if (!module) return null;
  let header: VocabHeader | null = null;
  const { counter, tables } = wasmAsciiCounter(module, statSync(file).size, (into): RankTables => {
    readInto(file, into);
    const v = decodeVocab(into);
    header = v.header;
    return v.ranks.tables;
  });
  const h = header as VocabHeader | null;
  if (!h || h.encoding !== name) return null;
  return { ranks: new RankTable(tables), patStr: h.patStr, from: 'asset', ascii: counter };
}

/** The vocabulary of an encoding, from the asset when there is one. Once per process (callers cache). */
export function loadVocab(name: VocabName): LoadedVocab {
  for (const file of candidates(name)) {
    if (!existsSync(file)) continue;
    let withCounter: LoadedVocab | null = null;
    try {
      withCounter = loadWithCounter(file, name);
    } catch {
      // No WebAssembly memory to be had, or a damaged module: JavaScript counts alone.
    }
    if (withCounter) return withCounter;
    const v = decodeVocab(readFileSync(file));
    if (v.header.encoding !== name) continue;
    return { ranks: v.ranks, patStr: v.header.patStr, from: 'asset', ascii: null };
  }
  const v = vocabFromJsTiktoken(name);
  return { ranks: RankTable.build(v.tokenBytes, v.lengths), patStr: v.patStr, from: 'js-tiktoken', ascii: null };
}
