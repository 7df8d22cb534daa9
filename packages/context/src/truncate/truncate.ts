import type { TruncationPolicy } from '@threadline/protocol';
import { APPROX_CHARS_PER_TOKEN, encoderFor } from '../tokens/encoder';

/** Default `toolOutput.maxTokens` (seed 004 Phase 1). */
export const TOOL_OUTPUT_MAX_TOKENS = 5000;
/**
 * JSON serialization eats part of the budget (escaped quotes, newlines, the tool-message frame),
 * so an output is measured as tokens × 1.2 against the limit and the kept text is sized to
 * maxTokens / 1.2 (seed 004 Decision 3).
 */
export const SERIALIZATION_BUFFER = 1.2;
/** Hard cap of the full output kept for the user and `read_tool_output` (SPEC §3.2). */
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
  /** Tokens (tokens policy) or UTF-16 chars (bytes policy) left out. */
  removed: number;
  unit: 'tokens' | 'chars' | null;
  totalLines: number;
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

/**
 * Write-time truncation of a tool output for the model (SPEC §3.2): keep head and tail 50/50,
 * mark the cut, prefix the line count. Under `none`, or when it fits, the text is returned as is.
 */
export function truncateToolOutput(text: string, opts: TruncateOptions = {}): TruncateResult {
  const policy = opts.policy ?? 'tokens';
  const maxTokens = opts.maxTokens ?? TOOL_OUTPUT_MAX_TOKENS;
  const unchanged: TruncateResult = { text, truncated: false, removed: 0, unit: null, totalLines: lineCount(text) };
  if (policy === 'none' || maxTokens <= 0) return unchanged;
  const keep = Math.floor(maxTokens / SERIALIZATION_BUFFER);
  const enc = encoderFor(opts.model ?? '');
  const tokens = policy === 'tokens' ? enc.encode(text) : null;

  if (policy === 'bytes' || tokens === null) {
    // Bytes policy (and the tokens policy of a model without a BPE): work in characters.
    const budget = keep * APPROX_CHARS_PER_TOKEN;
    if (text.length * SERIALIZATION_BUFFER <= maxTokens * APPROX_CHARS_PER_TOKEN) return unchanged;
    const head = safeHead(text, Math.floor(budget / 2));
    const tail = safeTail(text, budget - Math.floor(budget / 2));
    const removed = text.length - head.length - tail.length;
    const unit = policy === 'bytes' ? 'chars' : 'tokens';
    const count = unit === 'chars' ? removed : Math.ceil(removed / APPROX_CHARS_PER_TOKEN);
    return {
      text: assemble(head, tail, marker(count, unit, opts.outputId), unchanged.totalLines),
      truncated: true,
      removed: count,
      unit,
      totalLines: unchanged.totalLines,
    };
  }

  if (tokens.length * SERIALIZATION_BUFFER <= maxTokens) return unchanged;
  const headN = Math.floor(keep / 2);
  const tailN = keep - headN;
  const head = exactPrefix(text, enc.decode(tokens.slice(0, headN)));
  const tail = exactSuffix(text, enc.decode(tokens.slice(tokens.length - tailN)));
  const removed = tokens.length - headN - tailN;
  return {
    text: assemble(head, tail, marker(removed, 'tokens', opts.outputId), unchanged.totalLines),
    truncated: true,
    removed,
    unit: 'tokens',
    totalLines: unchanged.totalLines,
  };
}

export interface CapResult {
  text: string;
  capped: boolean;
  droppedBytes: number;
}

/**
 * The stored full output is itself capped (1 MiB of UTF-8 by default) and marked, so one runaway
 * command cannot bloat the database. The cut lands on a character boundary.
 */
export function capFullOutput(text: string, maxBytes = FULL_OUTPUT_MAX_BYTES): CapResult {
  // Cheap exit: UTF-8 needs at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= maxBytes) return { text, capped: false, droppedBytes: 0 };
  const bytes = new globalThis.TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, capped: false, droppedBytes: 0 };
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  const kept = new globalThis.TextDecoder().decode(bytes.subarray(0, end));
  const dropped = bytes.length - end;
  return {
    text: `${kept}\n…[full output capped at ${maxBytes} bytes; ${dropped} bytes dropped]…`,
    capped: true,
    droppedBytes: dropped,
  };
}
