import { getEncoding, type Tiktoken } from 'js-tiktoken';
import { encodingForModel, type EncodingName } from './models';

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

function exact(name: 'o200k_base' | 'cl100k_base'): TokenEncoder {
  return {
    name,
    count: (text) => (text.length === 0 ? 0 : encodeLinear(bpe(name), text).length),
    encode: (text) => encodeLinear(bpe(name), text),
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
