/**
 * A hand-written scanner for o200k_base's pre-tokenizer. The encoding's regex (Unicode property
 * classes, lookahead, backtracking) splits ~8 MB/s in V8 and takes ~10 ms to compile; the ASCII
 * scanner below finds the same pieces an order of magnitude faster, and the lines around a
 * non-ASCII character go through a slower scanner of the whole pattern (o200kPieceEnd, below).
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
 * A position no piece spans, where text can be split and each part pre-tokenized alone with
 * identical pieces (nothing in the pattern looks behind, and no piece ending before it looks
 * past it):
 * - right after \r or \n, on an ASCII character that is neither whitespace nor `/`. Only three
 *   alternatives can hold a newline: `\s*[\r\n]+` (taken before `\s+`, it ends after the last
 *   newline of its whitespace run), `[\r\n/]*` after punctuation, and none of them continues onto
 *   such a character. (Diff lines start with `+`/`-`, so one is rarely more than a line away.)
 * - on a space right after an ASCII letter or digit. A space is only ever the first character of
 *   a piece that is not all whitespace, and a letter or digit is in no whitespace piece, so the
 *   piece holding that letter or digit ends before the space (its contraction would need a `'`
 *   there; `\s+(?!\S)` looks ahead only after whitespace). In prose and most lines of a file,
 *   one is a word away, so the stretch around a non-ASCII character stays short.
 */
function isSafeBoundary(t: string, p: number): boolean {
  if (p <= 0 || p >= t.length) return false;
  const before = t.charCodeAt(p - 1);
  const c = t.charCodeAt(p);
  if (c === 32) return before < 128 && (CLASS[before]! & (LETTER | DIGIT)) !== 0;
  return (before === 10 || before === 13) && c < 128 && (CLASS[c]! & SPACE) === 0 && c !== 47;
}

/** The last safe boundary p with from < p <= limit, or -1 (where a long text may be cut). */
export function o200kSafeBoundaryBefore(t: string, from: number, limit: number): number {
  for (let p = Math.min(limit, t.length - 1); p > from; p--) if (isSafeBoundary(t, p)) return p;
  return -1;
}

/**
 * Every o200k piece of a text, in order: ASCII stretches through the ASCII scanner, the lines
 * around a non-ASCII character through o200kPieceEnd.
 */
export function forEachO200kPiece(t: string, piece: (text: string) => void): void {
  forEachO200kSpan(t, (s, e) => piece(t.slice(s, e)));
}

/**
 * Where the next stretch that needs the Unicode scanner starts, from `from` on: the last safe
 * boundary before the first non-ASCII character (t.length when the rest is ASCII).
 */
export function o200kUnicodeStart(t: string, from: number): number {
  const n = t.length;
  const bad = nextNonAscii(t, from);
  if (bad === n) return n;
  let start = bad;
  while (start > from && !isSafeBoundary(t, start)) start--;
  return start;
}

/** Where that stretch ends: the first safe boundary after its first non-ASCII character. */
export function o200kUnicodeEnd(t: string, start: number): number {
  const n = t.length;
  let end = nextNonAscii(t, start);
  end++;
  while (end < n && !isSafeBoundary(t, end)) end++;
  return Math.min(end, n);
}

const NON_ASCII = /[\u0080-\uffff]/g;

/**
 * The first non-ASCII UTF-16 unit at or after `from` (t.length when none): the regex engine's
 * native scan, several times faster than a loop of charCodeAt in a fresh process (where that
 * loop runs unoptimized over the whole text before V8 compiles it).
 */
function nextNonAscii(t: string, from: number): number {
  NON_ASCII.lastIndex = from;
  return NON_ASCII.test(t) ? NON_ASCII.lastIndex - 1 : t.length;
}

/** As forEachO200kPiece, with each piece as a span [start, end) of `t` (no string made). */
export function forEachO200kSpan(t: string, span: (start: number, end: number) => void): void {
  const n = t.length;
  let from = 0;
  while (from < n) {
    const start = o200kUnicodeStart(t, from);
    scanO200kAscii(t, span, from, start);
    if (start === n) return;
    const end = o200kUnicodeEnd(t, start);
    for (let i = start; i < end;) {
      const e = o200kPieceEnd(t, i, end);
      span(i, e);
      i = e;
    }
    from = end;
  }
}

/*
 * The same pre-tokenizer for any text (the stretches around non-ASCII characters), by hand as
 * well: building and first running the encoding's regex (Unicode property classes in many
 * alternatives) costs several milliseconds, which every fresh process paid at its first accented
 * letter. Characters are read as code points (the regex's `u` flag); a non-ASCII one is
 * classified once by a small regex of its classes (below) and remembered. The alternatives are
 * tried in the pattern's order with its greedy backtracking: a mark (\p{M}) is in both letter sets
 * but not in \p{L}, so it may be a prefix or punctuation too, and a run of letters may have to
 * give some back (see letterAlt1).
 */
const U_SET = 1; // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
const L_SET = 2; // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
const NUM = 4; // \p{N}
const WS = 8; // \s
const NL = 16; // [\r\n]
const LET = 32; // \p{L}

const ASCII_FLAGS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const k = CLASS[c]!;
  ASCII_FLAGS[c] =
    (k & UPPER ? U_SET | LET : 0) |
    (k & LOWER ? L_SET | LET : 0) |
    (k & DIGIT ? NUM : 0) |
    (k & SPACE ? WS : 0) |
    (k & NEWLINE ? NL : 0);
}

/**
 * One regex with a group per class (Unicode's general categories are disjoint, and \s is none of
 * them): compiled once, the first time a non-ASCII character is met, in ~1.5 ms, where one regex
 * per set costs twice that (the letter classes would be compiled twice).
 */
let classifier: RegExp | null = null;
const GROUP_FLAGS = [
  0,
  L_SET | LET, // \p{Ll}
  U_SET | LET, // \p{Lu}, \p{Lt}
  U_SET | L_SET | LET, // \p{Lm}, \p{Lo}
  U_SET | L_SET, // \p{M}: in both letter sets, not in \p{L}
  NUM, // \p{N}
  WS, // \s
];
const nonAsciiFlags = new Map<number, number>();

function flagsOf(cp: number): number {
  if (cp < 128) return ASCII_FLAGS[cp]!;
  let f = nonAsciiFlags.get(cp);
  if (f === undefined) {
    classifier ??= /^(?:(\p{Ll})|([\p{Lu}\p{Lt}])|([\p{Lm}\p{Lo}])|(\p{M})|(\p{N})|(\s))$/u;
    const m = classifier.exec(String.fromCodePoint(cp));
    f = 0;
    if (m) for (let g = 1; g < GROUP_FLAGS.length; g++) if (m[g] !== undefined) f = GROUP_FLAGS[g]!;
    nonAsciiFlags.set(cp, f);
  }
  return f;
}

/** The code point at i (a surrogate pair read whole; a lone surrogate is a code point of its own). */
function cpAt(t: string, i: number, n: number): number {
  const c = t.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
    const d = t.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
  }
  return c;
}

const widthOf = (cp: number): number => (cp > 0xffff ? 2 : 1);

/** End of the run from i of code points that have one of `flags`. */
function runOf(t: string, i: number, n: number, flags: number): number {
  let j = i;
  while (j < n) {
    const cp = cpAt(t, j, n);
    if (!(flagsOf(cp) & flags)) break;
    j += widthOf(cp);
  }
  return j;
}

/** End of `(?:'s|'t|'re|'ve|'m|'ll|'d)?` (either case) at i. */
const withContraction = (t: string, i: number): number => i + contraction(t, i);

/** `U_SET* L_SET+ contraction?` from j, as the regex backtracks it; -1 when it does not match. */
function letterAlt1(t: string, j: number, n: number): number {
  const r = runOf(t, j, n, U_SET);
  const l = runOf(t, r, n, L_SET);
  if (l > r) return withContraction(t, l);
  // U_SET* took every letter: it gives back from the end until L_SET+ can take one (a mark, Lm or
  // Lo, in both sets); L_SET+ then ends there (what follows in the run is not in L_SET).
  let last = -1;
  for (let k = j; k < r;) {
    const cp = cpAt(t, k, n);
    const w = widthOf(cp);
    if (flagsOf(cp) & L_SET) last = k + w;
    k += w;
  }
  return last < 0 ? -1 : withContraction(t, last);
}

/** `U_SET+ L_SET* contraction?` from j; -1 when it does not match. */
function letterAlt2(t: string, j: number, n: number): number {
  const r = runOf(t, j, n, U_SET);
  if (r === j) return -1;
  return withContraction(t, runOf(t, r, n, L_SET));
}

/** End of the o200k pre-token that starts at i in t[…, n), for any text (ASCII or not). */
export function o200kPieceEnd(t: string, i: number, n: number): number {
  const c = cpAt(t, i, n);
  const f = flagsOf(c);
  const w = widthOf(c);
  // `[^\r\n\p{L}\p{N}]?` before the letters: tried with it first, then without, per alternative.
  const prefix = !(f & (NL | LET | NUM)) && i + w < n;
  if (prefix) {
    const e = letterAlt1(t, i + w, n);
    if (e >= 0) return e;
  }
  if (f & (U_SET | L_SET)) {
    const e = letterAlt1(t, i, n);
    if (e >= 0) return e;
  }
  if (prefix) {
    const e = letterAlt2(t, i + w, n);
    if (e >= 0) return e;
  }
  if (f & U_SET) {
    const e = letterAlt2(t, i, n);
    if (e >= 0) return e;
  }
  if (f & NUM) {
    let j = i + w;
    for (let k = 1; k < 3 && j < n; k++) {
      const cp = cpAt(t, j, n);
      if (!(flagsOf(cp) & NUM)) break;
      j += widthOf(cp);
    }
    return j;
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  const p = c === 32 && i + 1 < n && !(flagsOf(cpAt(t, i + 1, n)) & (WS | LET | NUM)) ? i + 1 : i;
  if (!(flagsOf(cpAt(t, p, n)) & (WS | LET | NUM))) {
    let j = p;
    while (j < n) {
      const cp = cpAt(t, j, n);
      if (flagsOf(cp) & (WS | LET | NUM)) break;
      j += widthOf(cp);
    }
    while (j < n && (t.charCodeAt(j) === 10 || t.charCodeAt(j) === 13 || t.charCodeAt(j) === 47)) j++;
    return j;
  }
  // Whitespace (every \s is one UTF-16 unit): `\s*[\r\n]+`, `\s+(?!\S)`, `\s+`.
  let e = i;
  let lastNl = -1;
  while (e < n) {
    const g = flagsOf(t.charCodeAt(e));
    if (!(g & WS)) break;
    if (g & NL) lastNl = e;
    e++;
  }
  if (lastNl >= 0) return lastNl + 1;
  if (e === n || e - i === 1) return e;
  return e - 1;
}
