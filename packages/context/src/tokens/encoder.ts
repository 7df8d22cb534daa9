import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import cl100kRanks from 'gpt-tokenizer/bpeRanks/cl100k_base';
import o200kRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { encodingForModel, type EncodingName } from './models';
import { runOffThread } from '../pool/pool';

/** Characters per token of the documented fallback for models without a known tokenizer. */
export const APPROX_CHARS_PER_TOKEN = 4;

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

type ExactName = Exclude<EncodingName, 'approx_chars_4'>;

/**
 * gpt-tokenizer's encoder of an encoding, built on first use (~70 ms for o200k; a process that
 * never counts exactly never pays it). gpt-tokenizer, not js-tiktoken: js-tiktoken parses its
 * ranks for most of a second (a fresh app's first meter reading three times as long as with the
 * prebuilt vocabulary this replaced) and counts a few times slower; gpt-tokenizer's counts are the
 * same (tokens/__tests__/counting.test.ts compares them with js-tiktoken's).
 */
const encodings = new Map<ExactName, GptEncoding>();
function encoding(name: ExactName): GptEncoding {
  let e = encodings.get(name);
  if (!e) {
    const ranks = name === 'o200k_base' ? o200kRanks : cl100kRanks;
    e = GptEncoding.getEncodingApi(name, () => ranks);
    encodings.set(name, e);
  }
  return e;
}

/** Special-token strings (`<|endoftext|>`) are encoded as the text they are, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** The ids of a text. */
const ids = (name: ExactName, text: string): number[] => encoding(name).encode(text, AS_TEXT);
/** The count of a text (gpt-tokenizer counts without building the ids). */
const counted = (name: ExactName, text: string): number => encoding(name).countTokens(text, AS_TEXT);

/**
 * BPE is quadratic in the length of one pre-token, and 16,000 characters of base64 or minified
 * code without a space are one pre-token. A pre-token over MAX_EXACT_PIECE chars is cut: each
 * 256-character run of non-space or of space is a part, the stretches between too (cut every 256
 * chars if longer), and each part is encoded alone. That keeps counting linear, changes a count
 * by at most a token per cut, and still decodes to the exact text. Every other text is encoded
 * whole as it is, so its count is the encoding's exact count.
 */
const MAX_EXACT_PIECE = 1024;
const RUN = 256;
const RUN_PIECES = /\S{256}|\s{256}/g;

/** The parts a pre-token over MAX_EXACT_PIECE chars is cut into, in order (see above). */
function longPieceParts(piece: string, part: (p: string) => void): void {
  const gap = (s: number, e: number): void => {
    if (e - s <= MAX_EXACT_PIECE) part(piece.slice(s, e));
    else for (let i = s; i < e; i += RUN) part(piece.slice(i, Math.min(e, i + RUN)));
  };
  let at = 0;
  for (const m of piece.matchAll(RUN_PIECES)) {
    if (m.index > at) gap(at, m.index);
    part(m[0]);
    at = m.index + m[0].length;
  }
  if (at < piece.length) gap(at, piece.length);
}

/** Whitespace as the pre-tokenizers' `\s` has it. */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    (c > 127 &&
      (c === 0xa0 ||
        c === 0x1680 ||
        (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 ||
        c === 0x2029 ||
        c === 0x202f ||
        c === 0x205f ||
        c === 0x3000 ||
        c === 0xfeff))
  );
}

/**
 * Whether a text may hold a pre-token over MAX_EXACT_PIECE chars. A pre-token of either encoding
 * is at most one character and then a run of whitespace, or of non-space characters with the line
 * breaks and slashes o200k lets follow punctuation (`[\r\n/]*`): without such a run of 1,024 or
 * more, none is over 1,024 characters. One pass, no regex.
 */
function mayHoldLongPiece(text: string): boolean {
  if (text.length <= MAX_EXACT_PIECE) return false;
  let solid = 0;
  let blank = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = isSpace(c);
    solid = !space || c === 10 || c === 13 || c === 47 ? solid + 1 : 0;
    blank = space ? blank + 1 : 0;
    if (solid >= MAX_EXACT_PIECE || blank >= MAX_EXACT_PIECE) return true;
  }
  return false;
}

/** The encoding's pre-tokenizer (gpt-tokenizer's own; matchAll works on a copy of it). */
const pretokenizer = (name: ExactName): RegExp =>
  name === 'o200k_base' ? O200K_TOKEN_SPLIT_REGEX : CL100K_TOKEN_SPLIT_REGEX;

/**
 * The text as spans between pre-token boundaries, in order: `[s, e, false]` for a stretch of
 * ordinary pre-tokens of about `size` characters (encoded whole), `[s, e, true]` for each
 * pre-token over MAX_EXACT_PIECE chars.
 */
function* stretches(name: ExactName, text: string, size: number): Generator<[number, number, boolean]> {
  let from = 0;
  for (const m of text.matchAll(pretokenizer(name))) {
    const end = m.index + m[0].length;
    if (m[0].length > MAX_EXACT_PIECE) {
      if (m.index > from) yield [from, m.index, false];
      yield [m.index, end, true];
      from = end;
    } else if (end - from >= size) {
      yield [from, end, false];
      from = end;
    }
  }
  if (from < text.length) yield [from, text.length, false];
}

/** Counts (and ids) of the parts of long pre-tokens, which repeat (one character, padding); bounded. */
const PARTS_MAX = 4096;
const partIds = new Map<string, number[]>();

function partIdsOf(name: ExactName, part: string): number[] {
  const key = name + '\u0000' + part;
  let got = partIds.get(key);
  if (!got) {
    got = ids(name, part);
    if (partIds.size >= PARTS_MAX) partIds.clear();
    partIds.set(key, got);
  }
  return got;
}

function encodeExact(name: ExactName, text: string): number[] {
  if (!mayHoldLongPiece(text)) return ids(name, text);
  const out: number[] = [];
  for (const [s, e, long] of stretches(name, text, Infinity)) {
    if (long) longPieceParts(text.slice(s, e), (p) => out.push(...partIdsOf(name, p)));
    else for (const id of ids(name, text.slice(s, e))) out.push(id);
  }
  return out;
}

function countExact(name: ExactName, text: string): number {
  if (!mayHoldLongPiece(text)) return counted(name, text);
  let total = 0;
  for (const [s, e, long] of stretches(name, text, Infinity)) {
    if (long) longPieceParts(text.slice(s, e), (p) => (total += partIdsOf(name, p).length));
    else total += counted(name, text.slice(s, e));
  }
  return total;
}

function exact(name: ExactName): TokenEncoder {
  return {
    name,
    count: (text) => (text.length === 0 ? 0 : countExact(name, text)),
    encode: (text) => (text.length === 0 ? [] : encodeExact(name, text)),
    decode: (tokens) => encoding(name).decode(tokens),
  };
}

const encoders = new Map<EncodingName, TokenEncoder>();

export function encoderFor(model: string): TokenEncoder {
  const name = encodingForModel(model);
  let enc = encoders.get(name);
  if (!enc) {
    enc = name === 'approx_chars_4' ? approx : exact(name);
    encoders.set(name, enc);
  }
  return enc;
}

/** Token count of a plain string for a model. */
export function countTextTokens(text: string, model: string): number {
  return encoderFor(model).count(text);
}

// ─── Counting that yields: for the thread that answers requests (issue 25) ─────────────────────

/** Characters encoded between two yields of a sliced count (a few ms of the slowest text). */
const SLICE_CHARS = 2048;

/**
 * The count of countTextTokens, as steps: each `next()` does a bounded amount of work (a stretch
 * of about SLICE_CHARS characters between pre-token boundaries, or a few parts of a long
 * pre-token), so a caller can interleave it with other work. Same result as countTextTokens.
 */
export function* countTextTokensSteps(text: string, model: string): Generator<void, number, void> {
  const enc = encoderFor(model);
  if (enc.name === 'approx_chars_4' || text.length === 0) return enc.count(text);
  const name = enc.name;
  const cut = mayHoldLongPiece(text);
  let total = 0;
  for (const [s, e, long] of stretches(name, text, SLICE_CHARS)) {
    if (long && cut) {
      const parts: string[] = [];
      longPieceParts(text.slice(s, e), (p) => parts.push(p));
      for (let k = 0; k < parts.length; k++) {
        total += partIdsOf(name, parts[k]!).length;
        if (k % 8 === 7) yield;
      }
    } else total += counted(name, text.slice(s, e));
    yield;
  }
  return total;
}

/** Below this a text is counted in one go (well under a millisecond of the slowest text). */
export const SLICED_COUNT_MIN_CHARS = 8192;

export interface SliceOptions {
  /** Work between two yields to the event loop (ms of wall clock; default 8). */
  sliceMs?: number;
  signal?: AbortSignal;
}

/** Gives the event loop a turn (I/O, timers, other requests) before going on. */
export const yieldToEventLoop = (): Promise<void> =>
  new Promise((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));

/** Runs steps, yielding to the event loop whenever a slice has run `sliceMs`. */
export async function runSteps<T>(steps: Generator<void, T, void>, opts: SliceOptions = {}): Promise<T> {
  const sliceMs = opts.sliceMs ?? 8;
  let t0 = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - t0 >= sliceMs) {
      await yieldToEventLoop();
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
      t0 = performance.now();
    }
  }
}

/** From this many characters a count runs on the work pool (pool/pool.ts), not in slices here. */
export const OFF_THREAD_COUNT_CHARS = 32_000;

/**
 * countTextTokens without holding the thread: a long text is counted on the work pool, or in
 * slices between which the event loop runs (a medium one, or when no worker can run).
 */
export async function countTextTokensAsync(text: string, model: string, opts?: SliceOptions): Promise<number> {
  if (text.length < SLICED_COUNT_MIN_CHARS || encodingForModel(model) === 'approx_chars_4')
    return countTextTokens(text, model);
  const sliced = (): Promise<number> => runSteps(countTextTokensSteps(text, model), opts);
  if (text.length < OFF_THREAD_COUNT_CHARS) return sliced();
  const n = await runOffThread<number>('countText', { text, model }, { inThread: sliced });
  // A worker does not stop mid-count: a caller that gave up gets what the slices would give it.
  if (opts?.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
  return n;
}

/**
 * A quick upper-leaning estimate (UTF-8 bytes / 3, at least chars / 4): what a text over a size
 * shows until its exact count, made in the background, replaces it.
 */
export function estimateTextTokens(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return Math.ceil(Math.max(bytes / 3, text.length / APPROX_CHARS_PER_TOKEN));
}
