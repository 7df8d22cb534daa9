// Full tool outputs (up to 1 MiB each) are stored compressed: they are most of a coding session's
// bytes, written once and read only when the user or the agent asks for one. Brotli at quality 4
// compresses program output several times over at about deflate's speed.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

export function packOutput(text: string): Buffer {
  const raw = Buffer.from(text, 'utf8');
  return brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 4,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
}

/** A TEXT value is an output written before compression (or by another tool): it is the text. */
export function unpackOutput(stored: Buffer | string): string {
  return typeof stored === 'string' ? stored : brotliDecompressSync(stored).toString('utf8');
}
