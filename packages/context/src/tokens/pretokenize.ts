/**
 * A hand-written scanner for o200k_base's pre-tokenizer on ASCII text. The encoding's regex
 * (Unicode property classes, lookahead, backtracking) splits ~8 MB/s in V8; this scanner finds
 * the same pieces an order of magnitude faster. Texts with any non-ASCII character use the regex.
 * The pattern, for reference (ASCII reading: L = [A-Za-z], N = [0-9], \s = [ \t\n\v\f\r]):
 *   [^\r\n L N]? [A-Z]* [a-z]+ contraction?  |  [^\r\n L N]? [A-Z]+ [a-z]* contraction?
 *   | N{1,3} |  ?[^\s L N]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+
 * Equality with js-tiktoken is tested on every transcript (tokens.test.ts).
 */

const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const SPACE = 8;
const NEWLINE = 16;
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c >= 65 && c <= 90) CLASS[c] = UPPER;
  else if (c >= 97 && c <= 122) CLASS[c] = LOWER;
  else if (c >= 48 && c <= 57) CLASS[c] = DIGIT;
  else if (c === 10 || c === 13) CLASS[c] = SPACE | NEWLINE;
  else if (c === 32 || c === 9 || c === 11 || c === 12) CLASS[c] = SPACE;
}
const LETTER = UPPER | LOWER;

/** True when every UTF-16 unit is ASCII. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

/** Length of a contraction (`'s`, `'re`, `'LL`…) at i, or 0. */
function contraction(t: string, i: number): number {
  if (t.charCodeAt(i) !== 39) return 0;
  const a = t.charCodeAt(i + 1) | 0x20; // lowercased
  if (a === 115 || a === 116 || a === 109 || a === 100) return 2; // s t m d
  const b = t.charCodeAt(i + 2) | 0x20;
  if ((a === 114 && b === 101) || (a === 118 && b === 101) || (a === 108 && b === 108)) return 3; // re ve ll
  return 0;
}

/** Letters (upper run, then lower run) from i; 0 when there is no letter. */
function letters(t: string, i: number, n: number): number {
  let j = i;
  while (j < n && CLASS[t.charCodeAt(j)] === UPPER) j++;
  while (j < n && CLASS[t.charCodeAt(j)] === LOWER) j++;
  if (j === i) return 0;
  return j - i + contraction(t, j);
}

/**
 * End of the pre-token that starts at i in the ASCII text t[…, n). Pieces are found one after the
 * other from their start alone, so callers loop without a callback (the counter's hot loop).
 */
export function o200kAsciiPieceEnd(t: string, i: number, n: number): number {
  const c = CLASS[t.charCodeAt(i)]!;
  // Letters, with an optional prefix that is neither \r, \n, a letter nor a digit.
  if (c & LETTER) return i + letters(t, i, n);
  if (!(c & (NEWLINE | DIGIT)) && i + 1 < n && CLASS[t.charCodeAt(i + 1)]! & LETTER)
    return i + 1 + letters(t, i + 1, n);
  if (c & DIGIT) {
    let j = i + 1;
    while (j < n && j < i + 3 && CLASS[t.charCodeAt(j)] === DIGIT) j++;
    return j;
  }
  // ` ?[^\s L N]+[\r\n/]*`
  const p = t.charCodeAt(i) === 32 ? i + 1 : i;
  if (p < n && CLASS[t.charCodeAt(p)] === 0) {
    let j = p + 1;
    while (j < n && CLASS[t.charCodeAt(j)] === 0) j++;
    while (j < n && (CLASS[t.charCodeAt(j)]! & NEWLINE || t.charCodeAt(j) === 47)) j++;
    return j;
  }
  // Whitespace run W from i (c is SPACE here).
  let w = i;
  let lastNl = -1;
  while (w < n && CLASS[t.charCodeAt(w)]! & SPACE) {
    if (CLASS[t.charCodeAt(w)]! & NEWLINE) lastNl = w;
    w++;
  }
  if (lastNl >= 0) return lastNl + 1; // \s*[\r\n]+
  if (w === n || w - i === 1) return w; // \s+(?!\S) at the end, or \s+ of one character
  return w - 1; // \s+(?!\S): the last space goes with the next piece
}

/** Calls `piece(start, end)` for each pre-token of an ASCII text, in order. */
function scanO200kAscii(t: string, piece: (start: number, end: number) => void, from = 0, to = t.length): void {
  for (let i = from; i < to;) {
    const e = o200kAsciiPieceEnd(t, i, to);
    piece(i, e);
    i = e;
  }
}

/**
 * A position no piece spans: right after \r or \n and on an ASCII character that is neither
 * whitespace nor `/`. Only three alternatives can hold a newline: `\s*[\r\n]+` (taken before
 * `\s+`, it ends after the last newline of its whitespace run), `[\r\n/]*` after punctuation, and
 * none of them continues onto such a character; nothing in the pattern looks behind. Text can be
 * split there and each part pre-tokenized alone with identical pieces. (Diff lines start with
 * `+`/`-`, so a boundary is rarely more than a line away.)
 */
function isSafeBoundary(t: string, p: number): boolean {
  if (p <= 0 || p >= t.length) return false;
  const before = t.charCodeAt(p - 1);
  const c = t.charCodeAt(p);
  return (before === 10 || before === 13) && c < 128 && (CLASS[c]! & SPACE) === 0 && c !== 47;
}

/**
 * Every o200k piece of a text, in order: ASCII stretches through the scanner, the lines around a
 * non-ASCII character through the encoding's regex (`re`, global + unicode).
 */
export function forEachO200kPiece(t: string, re: RegExp, piece: (text: string) => void): void {
  forEachO200kSpan(t, re, (s, e) => piece(t.slice(s, e)));
}

/**
 * Where the next stretch that needs the encoding's regex starts, from `from` on: the last safe
 * boundary before the first non-ASCII character (t.length when the rest is ASCII).
 */
export function o200kRegexStart(t: string, from: number): number {
  const n = t.length;
  let bad = from;
  while (bad < n && t.charCodeAt(bad) <= 127) bad++;
  if (bad === n) return n;
  let start = bad;
  while (start > from && !isSafeBoundary(t, start)) start--;
  return start;
}

/** Where that stretch ends: the first safe boundary after its first non-ASCII character. */
export function o200kRegexEnd(t: string, start: number): number {
  const n = t.length;
  let end = start;
  while (end < n && t.charCodeAt(end) <= 127) end++;
  end++;
  while (end < n && !isSafeBoundary(t, end)) end++;
  return Math.min(end, n);
}

/** As forEachO200kPiece, with each piece as a span [start, end) of `t` (no string made). */
export function forEachO200kSpan(t: string, re: RegExp, span: (start: number, end: number) => void): void {
  const n = t.length;
  let from = 0;
  while (from < n) {
    const start = o200kRegexStart(t, from);
    scanO200kAscii(t, span, from, start);
    if (start === n) return;
    const end = o200kRegexEnd(t, start);
    for (const m of t.slice(start, end).matchAll(re)) span(start + m.index, start + m.index + m[0].length);
    from = end;
  }
}
