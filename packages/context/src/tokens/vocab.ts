/**
 * The vocabulary as a prebuilt binary asset (packages/context/vocab/<encoding>.bin), so a fresh
 * process reads ~2 MB instead of parsing js-tiktoken's base64 ranks (~0.9 s for o200k). The file
 * holds the regex of the pre-tokenizer and the two arrays RankTable is built from: every token's
 * bytes in id order and each id's length. `pnpm --filter @threadline/context build:vocab`
 * regenerates it from js-tiktoken (scripts/buildVocab.ts); a test checks it is js-tiktoken's.
 *
 * Layout: "TLVOCAB1", u32 LE header length, header JSON ({ encoding, patStr, ids, bytes,
 * source }), then `ids` lengths (u8 each), then `bytes` token bytes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { flattenTextMap, RankTable } from './bpe';

export type VocabName = 'o200k_base' | 'cl100k_base';

const MAGIC = 'TLVOCAB1';

export interface VocabHeader {
  encoding: VocabName;
  patStr: string;
  ids: number;
  bytes: number;
  /** Where it was generated from ("js-tiktoken"). */
  source: string;
}

export interface Vocab {
  header: VocabHeader;
  lengths: Uint8Array;
  tokenBytes: Uint8Array;
}

export function encodeVocab(v: Vocab): Uint8Array {
  const header = new TextEncoder().encode(JSON.stringify(v.header));
  const out = new Uint8Array(8 + 4 + header.length + v.lengths.length + v.tokenBytes.length);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(8, header.length, true);
  out.set(header, 12);
  out.set(v.lengths, 12 + header.length);
  out.set(v.tokenBytes, 12 + header.length + v.lengths.length);
  return out;
}

export function decodeVocab(buf: Uint8Array): Vocab {
  if (new TextDecoder().decode(buf.subarray(0, 8)) !== MAGIC) throw new Error('not a vocabulary file');
  const n = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(buf.subarray(12, 12 + n))) as VocabHeader;
  const at = 12 + n;
  if (buf.length !== at + header.ids + header.bytes) throw new Error('vocabulary file of the wrong size');
  return {
    header,
    lengths: buf.subarray(at, at + header.ids),
    tokenBytes: buf.subarray(at + header.ids),
  };
}

/** From js-tiktoken's ranks (the generator, the test, and the fallback when no asset is found). */
export function vocabFromJsTiktoken(name: VocabName): Vocab {
  const require = createRequire(import.meta.url);
  const { Tiktoken } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
  const ranks = require(`js-tiktoken/ranks/${name}`) as ConstructorParameters<typeof Tiktoken>[0];
  const enc = new Tiktoken(ranks) as unknown as { textMap: Map<number, Uint8Array>; patStr: string };
  const { tokenBytes, lengths } = flattenTextMap(enc.textMap);
  return {
    header: {
      encoding: name,
      patStr: enc.patStr,
      ids: lengths.length,
      bytes: tokenBytes.length,
      source: 'js-tiktoken',
    },
    lengths,
    tokenBytes,
  };
}

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
}

/** The vocabulary of an encoding, from the asset when there is one. Once per process (callers cache). */
export function loadVocab(name: VocabName): LoadedVocab {
  for (const file of candidates(name)) {
    if (!existsSync(file)) continue;
    const v = decodeVocab(readFileSync(file));
    if (v.header.encoding !== name) continue;
    return { ranks: new RankTable(v.tokenBytes, v.lengths), patStr: v.header.patStr, from: 'asset' };
  }
  const v = vocabFromJsTiktoken(name);
  return { ranks: new RankTable(v.tokenBytes, v.lengths), patStr: v.header.patStr, from: 'js-tiktoken' };
}
