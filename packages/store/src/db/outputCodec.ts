// Full tool outputs (up to 1 MiB each) are stored compressed: they are most of a coding session's
// bytes, written once and read only when the user or the agent asks for one. Brotli at quality 4
// compresses program output several times over at about deflate's speed.
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, brotliDecompressSync, constants, type BrotliOptions } from 'node:zlib';

const packOptions = (raw: Buffer): BrotliOptions => ({
  params: {
    [constants.BROTLI_PARAM_QUALITY]: 4,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
  },
});

export function packOutput(text: string): Buffer {
  const raw = Buffer.from(text, 'utf8');
  return brotliCompressSync(raw, packOptions(raw));
}

const brotliCompressAsync = promisify(brotliCompress);

/** packOutput on libuv's pool: a text of megabytes (an attachment's) compressed off the calling thread. */
export function packOutputAsync(text: string): Promise<Buffer> {
  const raw = Buffer.from(text, 'utf8');
  return brotliCompressAsync(raw, packOptions(raw));
}

/** A TEXT value is an output written before compression (or by another tool): it is the text. */
export function unpackOutput(stored: Buffer | string): string {
  return typeof stored === 'string' ? stored : brotliDecompressSync(stored).toString('utf8');
}
