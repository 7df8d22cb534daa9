import path from 'node:path';
import picomatch from 'picomatch';
import type { PathScope, Rule, RuleMatch } from '@threadline/protocol';
import { within } from '../workspace/reach';
import type { CommandPart, CommandWord, ReadCommand } from './command';

type CommandMatch = Extract<RuleMatch, { kind: 'command' }>;

/** Whether a rule may match: `maybe` when the call hides what it would be compared with. */
export type Verdict = 'yes' | 'no' | 'maybe';

/**
 * An allow rule's match of one simple command: exactly the words the card showed, unquoted and
 * plain, in the same places; no `NAME=value` before the program and no redirection to a file.
 */
export function allowsPart(m: CommandMatch, part: CommandPart): boolean {
  if (part.assigns > 0 || part.redirects) return false;
  if (part.words.length === 0) return false;
  if (part.words.length < m.words.length) return false;
  if (!m.more && part.words.length !== m.words.length) return false;
  return m.words.every((w, i) => part.words[i]!.plain && part.words[i]!.text === w);
}

/** Programs that run the rest of their words as a command, with no option of their own here. */
const PASS_THROUGH = new Set([
  'command',
  'builtin',
  'exec',
  'nohup',
  'sudo',
  'doas',
  'env',
  'nice',
  'setsid',
  'stdbuf',
]);
/** Programs that run a command they read from a string or a list: a deny rule cannot see it. */
const RUNS_HIDDEN = new Set([
  'bash',
  'sh',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'busybox',
  'eval',
  'source',
  '.',
  'xargs',
  'parallel',
  'watch',
  'su',
  'script',
  'timeout',
]);
const FIND_RUNS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/**
 * Whether a deny or ask rule may match one simple command: quotes and escapes count for what they
 * mean (`'rm'` and `r\m` are `rm`), a program named by its path counts by its name (`/bin/rm`),
 * simple wrappers are seen through (`env`, `sudo`, `command`, `nohup`…), and a word whose value is
 * not known (a glob) where the rule names one, or a program that runs a string as a command
 * (`bash -c`, `eval`, `xargs`, `find -exec`), is `maybe`.
 */
export function mayMatchPart(m: CommandMatch, part: CommandPart): Verdict {
  if (m.words.length === 0) return 'yes';
  let words: CommandWord[] = part.words;
  for (;;) {
    const program = words[0];
    if (!program) return 'no';
    if (!program.known) return 'maybe';
    const name = path.posix.basename(program.text);
    if (name === 'find' && words.some((w) => !w.known || FIND_RUNS.has(w.text))) return 'maybe';
    if (RUNS_HIDDEN.has(name)) return name === m.words[0] ? compareWords(m, words) : 'maybe';
    if (!PASS_THROUGH.has(name) || name === m.words[0]) break;
    // The wrapper's own options could take the next word: only a bare wrapper is seen through.
    let k = 1;
    while (k < words.length && name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[k]!.text)) k++;
    if (k < words.length && words[k]!.text.startsWith('-')) return 'maybe';
    words = words.slice(k);
  }
  return compareWords(m, words);
}

function compareWords(m: CommandMatch, words: readonly CommandWord[]): Verdict {
  const first = words[0]!;
  const name = m.words[0]!.includes('/') ? first.text : path.posix.basename(first.text);
  if (name !== m.words[0]) return 'no';
  let unsure = false;
  for (let i = 1; i < m.words.length; i++) {
    const w = words[i];
    if (!w) return 'no';
    if (!w.known) unsure = true;
    else if (w.text !== m.words[i]) return 'no';
  }
  if (!m.more && words.length !== m.words.length) return 'no';
  return unsure ? 'maybe' : 'yes';
}

/** A deny or ask rule against a whole command line: the strongest verdict of its parts. */
export function mayMatchCommand(m: CommandMatch, read: ReadCommand): Verdict {
  if (m.words.length === 0) return 'yes';
  if (!read.ok) return 'maybe';
  let best: Verdict = 'no';
  for (const part of read.parts) {
    const v = mayMatchPart(m, part);
    if (v === 'yes') return 'yes';
    if (v === 'maybe') best = 'maybe';
  }
  return best;
}

/**
 * Whether a path rule's scope holds for a path that really leads to `real` (symlinks followed,
 * workspace/resolve.ts): a folder rule never matches a path that leads out of it.
 */
export function scopeHolds(scope: PathScope, real: string, folder: string, platform: NodeJS.Platform): boolean {
  switch (scope.kind) {
    case 'any':
      return true;
    case 'inside':
      return within(real, folder, platform);
    case 'outside':
      return !within(real, folder, platform);
    case 'folder':
      return within(real, scope.path, platform);
    case 'glob':
      return globMatcher(scope.pattern, platform)(real);
  }
}

const globs = new Map<string, (p: string) => boolean>();

/** A user's glob compiled once (picomatch; patterns come from the user, never from the model). */
function globMatcher(pattern: string, platform: NodeJS.Platform): (p: string) => boolean {
  const key = `${platform}\u0000${pattern}`;
  let m = globs.get(key);
  if (!m) {
    const nocase = platform === 'darwin' || platform === 'win32';
    m = picomatch(pattern, { dot: true, nocase, windows: platform === 'win32' });
    globs.set(key, m);
  }
  return m;
}

/** The rules whose scope holds for a session working in `folder` (a folder rule: that folder or one inside it). */
export function rulesInForce(
  rules: readonly Rule[],
  sessionId: string,
  folder: string,
  platform: NodeJS.Platform,
): Rule[] {
  return rules.filter((r) => {
    if (r.scope.kind === 'session') return r.scope.sessionId === sessionId;
    if (r.scope.kind === 'folder') return within(folder, r.scope.folder, platform);
    return true;
  });
}
