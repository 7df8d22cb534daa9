/**
 * A strict reader of the command lines `shell` runs (bash -c), for permission rules: it reads a
 * small part of bash exactly — words (unquoted, 'single' and "double" quoted without expansions,
 * backslash escapes), the separators `;` `&&` `||` `|` `|&` `&` and newlines, and redirections —
 * and refuses everything else: any `$` or backtick (expansions and substitutions), `(` `)`
 * (subshells, process substitution), here-documents, comments, reserved words (`if`, `for`, `!`,
 * `{`…), unclosed quotes, and characters that are not what they look like (controls but tab and
 * newline, bidi and zero-width characters, spaces other than the plain one). A rule can allow only
 * what this reader read; whatever it refuses is never allowed by a rule.
 *
 * Why not a parser of the whole language: every construct a parser accepts is one more place where
 * its reading and bash's could differ, and the grant needs the opposite — a language small enough
 * that its reading is bash's. (Tried: `sh-syntax`, mvdan/sh in WebAssembly, hands back its syntax
 * tree as JSON without the kind of any command node; `mvdan-sh` is a deprecated 1.5 MB GopherJS
 * build; tree-sitter recovers from errors by design.)
 */

/** One word of a command as bash passes it to the program. */
export interface CommandWord {
  /** Quotes removed and escapes applied; as written where not `known`. */
  text: string;
  /** Written without quotes or escapes, of plain characters only: the only form a rule word matches. */
  plain: boolean;
  /** Its value depends on nothing (no glob, brace or tilde expansion could change it). */
  known: boolean;
}

/** One simple command of a command line. */
export interface CommandPart {
  /** `NAME=value` words before the program: they change what the program (or the rest) does. */
  assigns: number;
  /** The program, then its arguments (redirections left out). */
  words: CommandWord[];
  /** A redirection to or from a file; duplicating a descriptor (`2>&1`) and `/dev/null` are not. */
  redirects: boolean;
}

export type Unreadable =
  | 'platform'
  | 'too_long'
  | 'hidden_chars'
  | 'expansion'
  | 'subshell'
  | 'heredoc'
  | 'comment'
  | 'quote'
  | 'reserved_word'
  | 'syntax';

export type ReadCommand = { ok: true; parts: CommandPart[] } | { ok: false; why: Unreadable };

/** Longer command lines are not read (a rule is for commands a person reads on a card). */
export const COMMAND_READ_MAX = 16_000;

/** Characters of a rule word (the protocol's RULE_WORD), one at a time. */
const PLAIN = /^[\p{L}\p{N}_\-./:@%+=,]$/u;
/** Expansion characters: the word's value depends on the file system or the home folder. */
const EXPANDS = new Set(['*', '?', '[', ']', '{', '}', '~']);
/** Characters that end a word outside quotes. */
const ENDS_WORD = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>']);
const RESERVED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'select',
  'function',
  'time',
  'coproc',
  'in',
  '!',
  '{',
  '}',
  '[[',
  ']]',
]);

/**
 * Characters a card could not show for what they are: controls (but tab and newline), format
 * characters (bidi, zero-width), separators other than the plain space, private-use and
 * unassigned code points, and letters or marks that draw nothing (Hangul fillers, variation
 * selectors, the combining grapheme joiner, the braille blank).
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0\u2800]/u;

/** Marks that draw nothing: a class of them would combine with its neighbours, so they are ranges of code points. */
function invisibleMark(cp: number): boolean {
  return (
    cp === 0x034f ||
    cp === 0x17b4 ||
    cp === 0x17b5 ||
    (cp >= 0x180b && cp <= 0x180f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  );
}

export function hasHiddenChars(text: string): boolean {
  for (const ch of text) {
    if (ch === '\n' || ch === '\t') continue;
    if (HIDDEN.test(ch) || invisibleMark(ch.codePointAt(0)!)) return true;
  }
  return false;
}

type Token =
  | { t: 'word'; w: CommandWord; assignment: boolean; quoted: boolean }
  | { t: 'op'; v: '&&' | '||' | '|' | ';' | '&' | '\n' }
  | { t: 'redir'; v: string };

class Refused extends Error {
  constructor(readonly why: Unreadable) {
    super(why);
  }
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

interface ReadWord {
  /** null: only line continuations were there. */
  word: CommandWord | null;
  assignment: boolean;
  /** Quotes or escapes were used: bash recognises no reserved word then. */
  quoted: boolean;
  end: number;
}

/** Reads one word from `start` (not at a blank or an operator). */
function readWord(s: string, start: number): ReadWord {
  let i = start;
  let text = '';
  let plain = true;
  let known = true;
  let started = false;
  let quoted = false;
  /** How many leading characters were read unquoted and plain (for `NAME=`). */
  let plainLead = 0;
  let leadOpen = true;
  const add = (chars: string, isPlain: boolean, isQuoted = false): void => {
    text += chars;
    if (isQuoted) quoted = true;
    if (!isPlain) {
      plain = false;
      leadOpen = false;
    } else if (leadOpen) plainLead = text.length;
    started = true;
  };
  while (i < s.length) {
    const c = s[i]!;
    if (ENDS_WORD.has(c)) break;
    if (c === '(' || c === ')') throw new Refused('subshell');
    if (c === '$' || c === '`') throw new Refused('expansion');
    if (c === '#' && !started) throw new Refused('comment');
    if (c === "'") {
      const close = s.indexOf("'", i + 1);
      if (close < 0) throw new Refused('quote');
      add(s.slice(i + 1, close), false, true);
      i = close + 1;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let inner = '';
      while (j < s.length && s[j] !== '"') {
        const d = s[j]!;
        if (d === '$' || d === '`') throw new Refused('expansion');
        if (d === '\\') {
          const n = s[j + 1];
          if (n === undefined) throw new Refused('quote');
          if (n === '\n') throw new Refused('syntax');
          // Inside double quotes a backslash escapes only these; before anything else it stays.
          if (n === '"' || n === '\\') {
            inner += n;
            j += 2;
            continue;
          }
          inner += d;
          j += 1;
          continue;
        }
        inner += d;
        j += 1;
      }
      if (j >= s.length) throw new Refused('quote');
      add(inner, false, true);
      i = j + 1;
      continue;
    }
    if (c === '\\') {
      const n = s[i + 1];
      if (n === undefined) throw new Refused('syntax');
      if (n === '\n') {
        // A line continuation: bash removes it before reading words.
        if (started) {
          plain = false;
          leadOpen = false;
        }
        i += 2;
        continue;
      }
      add(n, false, true);
      i += 2;
      continue;
    }
    if (EXPANDS.has(c)) {
      known = false;
      add(c, false);
      i += 1;
      continue;
    }
    // One code point (a letter of another script may be two UTF-16 units).
    const ch = String.fromCodePoint(s.codePointAt(i)!);
    add(ch, PLAIN.test(ch));
    i += ch.length;
  }
  if (!started) return { word: null, assignment: false, quoted, end: i };
  const lead = ASSIGNMENT.exec(text);
  return { word: { text, plain, known }, assignment: lead !== null && lead[0].length <= plainLead, quoted, end: i };
}

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === ' ' || c === '\t') {
      i += 1;
      continue;
    }
    if (c === '\n' || c === ';') {
      if (s[i + 1] === ';' && c === ';') throw new Refused('syntax');
      out.push({ t: 'op', v: c });
      i += 1;
      continue;
    }
    if (c === '&') {
      if (s[i + 1] === '&') {
        out.push({ t: 'op', v: '&&' });
        i += 2;
      } else if (s[i + 1] === '>') {
        const v = s[i + 2] === '>' ? '&>>' : '&>';
        out.push({ t: 'redir', v });
        i += v.length;
      } else {
        out.push({ t: 'op', v: '&' });
        i += 1;
      }
      continue;
    }
    if (c === '|') {
      if (s[i + 1] === '|') {
        out.push({ t: 'op', v: '||' });
        i += 2;
      } else {
        out.push({ t: 'op', v: '|' });
        i += s[i + 1] === '&' ? 2 : 1;
      }
      continue;
    }
    if (c === '<' || c === '>') {
      const op = redirection(s, i);
      out.push({ t: 'redir', v: op });
      i += op.length;
      continue;
    }
    const read = readWord(s, i);
    const word = read.word;
    // Only line continuations between words: nothing to read.
    if (!word) {
      i = read.end;
      continue;
    }
    // `2>file`, `2>&1`: digits right before a redirection name the descriptor.
    if (/^\d+$/.test(word.text) && word.plain && (s[read.end] === '<' || s[read.end] === '>')) {
      const op = redirection(s, read.end);
      out.push({ t: 'redir', v: word.text + op });
      i = read.end + op.length;
      continue;
    }
    out.push({ t: 'word', w: word, assignment: read.assignment, quoted: read.quoted });
    i = read.end;
  }
  return out;
}

/** The redirection operator at `i`; here-documents and process substitution are refused. */
function redirection(s: string, i: number): string {
  const rest = s.slice(i, i + 3);
  if (rest.startsWith('<(') || rest.startsWith('>(')) throw new Refused('subshell');
  if (rest === '<<<') return '<<<';
  if (rest.startsWith('<<')) throw new Refused('heredoc');
  for (const op of ['>>', '>|', '>&', '<&', '<>']) if (rest.startsWith(op)) return op;
  return s[i]!;
}

/** A redirection that neither reads nor writes a file: a descriptor duplicated or closed, or /dev/null. */
function harmless(op: string, target: CommandWord): boolean {
  const bare = op.replace(/^\d+/, '');
  if (bare === '>&' || bare === '<&') return target.plain && /^(\d+|-)$/.test(target.text);
  if (bare === '>' || bare === '>>' || bare === '&>' || bare === '&>>' || bare === '>|')
    return target.plain && target.text === '/dev/null';
  return false;
}

function parse(tokens: Token[]): CommandPart[] {
  const parts: CommandPart[] = [];
  let cur: CommandPart | null = null;
  /** After `&&`, `||` or `|` a command must follow (newlines may come first). */
  let pending = false;
  for (let k = 0; k < tokens.length; k++) {
    const tok = tokens[k]!;
    if (tok.t === 'word') {
      cur ??= { assigns: 0, words: [], redirects: false };
      pending = false;
      if (cur.words.length === 0 && tok.assignment) {
        cur.assigns += 1;
        continue;
      }
      // `if`, `!`, `{`, `[[`…: the grammar this reader does not read (only unquoted, as in bash).
      if (cur.words.length === 0 && !tok.quoted && RESERVED.has(tok.w.text)) throw new Refused('reserved_word');
      cur.words.push(tok.w);
      continue;
    }
    if (tok.t === 'redir') {
      cur ??= { assigns: 0, words: [], redirects: false };
      pending = false;
      const target = tokens[k + 1];
      if (!target || target.t !== 'word') throw new Refused('syntax');
      if (!harmless(tok.v, target.w)) cur.redirects = true;
      k += 1;
      continue;
    }
    if (tok.v === '\n') {
      if (cur) parts.push(cur);
      cur = null;
      continue;
    }
    if (!cur) throw new Refused('syntax');
    parts.push(cur);
    cur = null;
    pending = tok.v === '&&' || tok.v === '||' || tok.v === '|';
  }
  if (pending) throw new Refused('syntax');
  if (cur) parts.push(cur);
  if (parts.length === 0) throw new Refused('syntax');
  return parts;
}

/**
 * The simple commands of a command line, each with its words, or why it cannot be read exactly.
 * Only bash is read: on Windows commands run in PowerShell, which this reader does not know.
 */
export function readCommand(command: string, platform: NodeJS.Platform): ReadCommand {
  if (platform === 'win32') return { ok: false, why: 'platform' };
  if (command.length > COMMAND_READ_MAX) return { ok: false, why: 'too_long' };
  if (hasHiddenChars(command)) return { ok: false, why: 'hidden_chars' };
  try {
    return { ok: true, parts: parse(tokenize(command)) };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, why: err.why };
    throw err;
  }
}
