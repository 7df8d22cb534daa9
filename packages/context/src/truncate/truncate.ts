import type { TruncationPolicy } from '@threadline/protocol';
import {
  APPROX_CHARS_PER_TOKEN,
  countTextTokensAsync,
  encoderFor,
  yieldToEventLoop,
  type SliceOptions,
} from '../tokens/encoder';
import { runOffThread } from '../pool/pool';

/** Default `toolOutput.maxTokens`. */
export const TOOL_OUTPUT_MAX_TOKENS = 5000;
/**
 * JSON serialization eats part of the budget (escaped quotes, newlines, the tool-message frame).
 * The limit itself decides whether an output is cut ("outputs over 5000 are cut"), and
 * a cut output keeps maxTokens / 1.2 so that the kept text plus its serialization overhead still
 * fits the limit. Measuring tokens × 1.2 against the limit instead would
 * cut outputs of ~4,200 tokens that the setting promises to keep whole.
 */
export const SERIALIZATION_BUFFER = 1.2;
/** Hard cap of the full output kept for the user and `read_tool_output`. */
export const FULL_OUTPUT_MAX_BYTES = 1024 * 1024;
export interface TruncateOptions {
  policy?: TruncationPolicy;
  maxTokens?: number;
  /** The model whose tokenizer measures the text (unknown models: chars/4). */
  model?: string;
  /** Id the agent passes to `read_tool_output` to page through the full output (the tool call id). */
  outputId?: string;
}

export interface TruncateResult {
  text: string;
  truncated: boolean;
  /** Tokens (tokens policy) or characters, i.e. Unicode code points (bytes policy), left out. */
  removed: number;
  unit: 'tokens' | 'chars' | null;
  totalLines: number;
  /** Tokens of the text when it was counted whole and kept whole (tokens policy): no need to count it again. */
  tokens?: number;
}

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** text.slice(0, n) moved back so it never ends inside a surrogate pair. */
export function safeHead(text: string, n: number): string {
  let end = Math.max(0, Math.min(n, text.length));
  if (end > 0 && end < text.length && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))) end--;
  return text.slice(0, end);
}

/** The last n UTF-16 units of text, moved forward so it never starts inside a surrogate pair. */
export function safeTail(text: string, n: number): string {
  let start = Math.max(0, text.length - Math.max(0, n));
  if (start > 0 && start < text.length && isLow(text.charCodeAt(start)) && isHigh(text.charCodeAt(start - 1))) start++;
  return text.slice(start);
}

function marker(count: number, unit: 'tokens' | 'chars', outputId: string | undefined): string {
  const how = outputId
    ? `the full output can be read with read_tool_output(id: "${outputId}", offset, limit)`
    : 'the full output can be read with read_tool_output(id, offset, limit)';
  return `…${count} ${unit} truncated… (${how})`;
}

function assemble(head: string, tail: string, mark: string, lines: number): string {
  return `Total output lines: ${lines}\n\n${head}\n${mark}\n${tail}`;
}

/**
 * Decoding a token prefix can end in the middle of a UTF-8 sequence (the decoder then yields
 * U+FFFD). Trim back until the piece is a real prefix/suffix of the text, then fix surrogates.
 */
function exactPrefix(text: string, piece: string): string {
  let p = piece;
  while (p.length > 0 && !text.startsWith(p)) p = p.slice(0, -1);
  return safeHead(text, p.length);
}
function exactSuffix(text: string, piece: string): string {
  let p = piece;
  while (p.length > 0 && !text.endsWith(p)) p = p.slice(1);
  return safeTail(text, p.length);
}

const utf8 = new globalThis.TextEncoder();
const fromUtf8 = new globalThis.TextDecoder();

/** `i` moved back to the first byte of the UTF-8 character it falls in (past 10xxxxxx bytes). */
function charStartBefore(bytes: Uint8Array, i: number): number {
  let j = Math.min(i, bytes.length);
  while (j > 0 && j < bytes.length && (bytes[j]! & 0xc0) === 0x80) j--;
  return j;
}

/** `i` moved forward to the first byte of the next UTF-8 character. */
function charStartAfter(bytes: Uint8Array, i: number): number {
  let j = Math.max(0, i);
  while (j < bytes.length && (bytes[j]! & 0xc0) === 0x80) j++;
  return j;
}

/**
 * Write-time truncation of a tool output for the model. An output is cut only when it
 * is over `maxTokens` (tokens, or maxTokens × 4 UTF-8 bytes under `bytes`); a cut keeps
 * maxTokens / 1.2 (the serialization buffer), half head and half tail, marks the cut and prefixes
 * the line count. Under `none`, or when it fits, the text is returned as is.
 */
export function truncateToolOutput(text: string, opts: TruncateOptions = {}): TruncateResult {
  const policy = opts.policy ?? 'tokens';
  const maxTokens = opts.maxTokens ?? TOOL_OUTPUT_MAX_TOKENS;
  const unchanged: TruncateResult = { text, truncated: false, removed: 0, unit: null, totalLines: lineCount(text) };
  if (policy === 'none' || maxTokens <= 0) return unchanged;
  const keep = Math.floor(maxTokens / SERIALIZATION_BUFFER);
  const cut = (head: string, tail: string, removed: number, unit: 'tokens' | 'chars'): TruncateResult => ({
    text: assemble(head, tail, marker(removed, unit, opts.outputId), unchanged.totalLines),
    truncated: true,
    removed,
    unit,
    totalLines: unchanged.totalLines,
  });

  if (policy === 'bytes') {
    // UTF-8 bytes, as the wire carries them: 4 bytes per token of budget. A UTF-16 unit is at
    // most 3 bytes, so short texts skip the encoding.
    const maxBytes = maxTokens * APPROX_CHARS_PER_TOKEN;
    if (text.length * 3 <= maxBytes) return unchanged;
    const bytes = utf8.encode(text);
    if (bytes.length <= maxBytes) return unchanged;
    const budget = keep * APPROX_CHARS_PER_TOKEN;
    const headEnd = charStartBefore(bytes, Math.floor(budget / 2));
    const tailStart = Math.max(headEnd, charStartAfter(bytes, bytes.length - (budget - Math.floor(budget / 2))));
    // The marker counts characters (code points), not bytes.
    const removed = [...fromUtf8.decode(bytes.subarray(headEnd, tailStart))].length;
    return cut(
      fromUtf8.decode(bytes.subarray(0, headEnd)),
      fromUtf8.decode(bytes.subarray(tailStart)),
      removed,
      'chars',
    );
  }

  const enc = encoderFor(opts.model ?? '');
  // Counting is cached per piece and much faster than encoding: most outputs fit and need no ids.
  const total = enc.count(text);
  if (total <= maxTokens) return { ...unchanged, tokens: total };
  if (text.length >= LARGE_OUTPUT_CHARS && enc.name !== 'approx_chars_4') {
    const { head, tail, removed } = cutEnds(text, total, maxTokens, opts.model ?? '');
    return cut(head, tail, removed, 'tokens');
  }
  const tokens = enc.encode(text);
  if (tokens === null) {
    // A model without a BPE: its tokens are estimated as chars / 4, so the cut works in chars.
    if (Math.ceil(text.length / APPROX_CHARS_PER_TOKEN) <= maxTokens) return unchanged;
    const budget = keep * APPROX_CHARS_PER_TOKEN;
    const head = safeHead(text, Math.floor(budget / 2));
    const tail = safeTail(text, budget - Math.floor(budget / 2));
    return cut(head, tail, Math.ceil((text.length - head.length - tail.length) / APPROX_CHARS_PER_TOKEN), 'tokens');
  }

  if (tokens.length <= maxTokens) return unchanged;
  const headN = Math.floor(keep / 2);
  const tailN = keep - headN;
  const head = exactPrefix(text, enc.decode(tokens.slice(0, headN)));
  const tail = exactSuffix(text, enc.decode(tokens.slice(tokens.length - tailN)));
  return cut(head, tail, tokens.length - headN - tailN, 'tokens');
}

/** Above this many characters truncateToolOutputAsync counts in slices and encodes only the two ends. */
export const LARGE_OUTPUT_CHARS = 64_000;

/** Tokens of margin past a window's end: its last pieces may split otherwise in the whole text. */
const WINDOW_MARGIN = 64;

/**
 * Head and tail of a large text that is over maxTokens (total): only its two ends are encoded, in
 * windows grown until they hold the kept tokens and a margin.
 */
function cutEnds(
  text: string,
  total: number,
  maxTokens: number,
  model: string,
): { head: string; tail: string; removed: number } {
  const enc = encoderFor(model);
  const keep = Math.floor(maxTokens / SERIALIZATION_BUFFER);
  const headN = Math.floor(keep / 2);
  const tailN = keep - headN;
  let head = '';
  for (let w = Math.max(4096, headN * 8); ; w *= 2) {
    const ids = enc.encode(safeHead(text, w))!;
    if (ids.length >= headN + WINDOW_MARGIN || w >= text.length) {
      head = exactPrefix(text, enc.decode(ids.slice(0, headN)));
      break;
    }
  }
  let tail = '';
  for (let w = Math.max(4096, tailN * 8); ; w *= 2) {
    const ids = enc.encode(safeTail(text, w))!;
    if (ids.length >= tailN + WINDOW_MARGIN || w >= text.length) {
      tail = exactSuffix(text, enc.decode(ids.slice(Math.max(0, ids.length - tailN))));
      break;
    }
  }
  return { head, tail, removed: Math.max(0, total - headN - tailN) };
}

/**
 * truncateToolOutput for the thread that answers requests: a large text is cut on the work pool,
 * or counted in slices (the event loop runs between them) when no worker can run, and only its two ends are encoded, in windows grown until
 * they hold the kept tokens. Same cut as truncateToolOutput (head and tail by tokens, the marker,
 * the line count); `removed` is the exact total less what is kept.
 */
export async function truncateToolOutputAsync(
  text: string,
  opts: TruncateOptions = {},
  slice?: SliceOptions,
): Promise<TruncateResult> {
  const policy = opts.policy ?? 'tokens';
  const maxTokens = opts.maxTokens ?? TOOL_OUTPUT_MAX_TOKENS;
  const enc = encoderFor(opts.model ?? '');
  if (policy !== 'tokens' || maxTokens <= 0 || text.length < LARGE_OUTPUT_CHARS || enc.name === 'approx_chars_4')
    return truncateToolOutput(text, opts);
  // The whole cut on the work pool (the same result: truncateToolOutput counts it whole, then
  // encodes only the two ends), in slices here when no worker can run.
  const cut = await runOffThread<TruncateResult>(
    'truncate',
    { text, opts },
    { inThread: () => truncateSliced(text, opts, slice) },
  );
  // A worker does not stop mid-cut: a caller that gave up gets what the slices would give it.
  if (slice?.signal?.aborted) throw slice.signal.reason ?? new Error('aborted');
  return cut;
}

async function truncateSliced(text: string, opts: TruncateOptions, slice?: SliceOptions): Promise<TruncateResult> {
  const maxTokens = opts.maxTokens ?? TOOL_OUTPUT_MAX_TOKENS;
  const total = await countTextTokensAsync(text, opts.model ?? '', slice);
  const totalLines = lineCount(text);
  if (total <= maxTokens) return { text, truncated: false, removed: 0, unit: null, totalLines, tokens: total };
  await yieldToEventLoop();
  const { head, tail, removed } = cutEnds(text, total, maxTokens, opts.model ?? '');
  return {
    text: assemble(head, tail, marker(removed, 'tokens', opts.outputId), totalLines),
    truncated: true,
    removed,
    unit: 'tokens',
    totalLines,
  };
}

export interface CapResult {
  text: string;
  capped: boolean;
  droppedBytes: number;
}

/**
 * The stored full output is itself capped (1 MiB of UTF-8 by default) and marked, so one runaway
 * command cannot bloat the database. Like the model's copy it keeps the head and the tail (the
 * end of a command's output says how it ended: the exit code, the last error), and drops the
 * middle. The cuts land on character boundaries.
 */
export function capFullOutput(text: string, maxBytes = FULL_OUTPUT_MAX_BYTES): CapResult {
  // Cheap exit: UTF-8 needs at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= maxBytes) return { text, capped: false, droppedBytes: 0 };
  const bytes = utf8.encode(text);
  if (bytes.length <= maxBytes) return { text, capped: false, droppedBytes: 0 };
  // No character is split.
  const headEnd = charStartBefore(bytes, Math.floor(maxBytes / 2));
  const tailStart = Math.max(headEnd, charStartAfter(bytes, bytes.length - (maxBytes - Math.floor(maxBytes / 2))));
  const dropped = tailStart - headEnd;
  const head = fromUtf8.decode(bytes.subarray(0, headEnd));
  const tail = fromUtf8.decode(bytes.subarray(tailStart));
  return {
    text: `${head}\n…[full output capped at ${maxBytes} bytes; ${dropped} bytes dropped from the middle]…\n${tail}`,
    capped: true,
    droppedBytes: dropped,
  };
}

/**
 * A text kept as its head and tail, about `keepTokens` in all (`headShare` of them at the head),
 * the middle left out: `removed` tokens. Null when the text already fits. The cuts fall on
 * character boundaries; only the two ends are encoded.
 */
export function headAndTail(
  text: string,
  keepTokens: number,
  model: string,
  headShare = 0.5,
): { head: string; tail: string; removed: number } | null {
  const enc = encoderFor(model);
  const total = enc.count(text);
  if (total <= keepTokens) return null;
  const headN = Math.max(1, Math.floor(keepTokens * headShare));
  const tailN = Math.max(0, keepTokens - headN);
  if (enc.name === 'approx_chars_4') {
    const head = safeHead(text, headN * APPROX_CHARS_PER_TOKEN);
    const tail = tailN > 0 ? safeTail(text, tailN * APPROX_CHARS_PER_TOKEN) : '';
    return { head, tail, removed: Math.max(0, total - headN - tailN) };
  }
  const end = (n: number, fromEnd: boolean): string => {
    if (n <= 0) return '';
    for (let w = Math.max(4096, n * 8); ; w *= 2) {
      const piece = fromEnd ? safeTail(text, w) : safeHead(text, w);
      const ids = enc.encode(piece)!;
      if (ids.length >= n + WINDOW_MARGIN || w >= text.length)
        return fromEnd
          ? exactSuffix(text, enc.decode(ids.slice(Math.max(0, ids.length - n))))
          : exactPrefix(text, enc.decode(ids.slice(0, n)));
    }
  };
  return { head: end(headN, false), tail: end(tailN, true), removed: Math.max(0, total - headN - tailN) };
}
