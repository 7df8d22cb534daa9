/**
 * Which files a shell command writes: `sed -i`, `>`/`>>` redirects (including `cat <<EOF > f`),
 * `tee`, `cp`/`mv` destinations, `touch`, and Python `open(…, 'w')` / `write_text` in inline
 * scripts. Used by draft extraction (written artifacts) and by the recall measure.
 */
import { isPathLike, isUnhelpfulPath, normalizePath } from './paths';

/** A heredoc's start (every match holds `<<`). */
export const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/g;

/** Split off heredoc bodies: returns the command lines without bodies, and the bodies. */
export function splitHeredocs(command: string): { shell: string; bodies: string[]; owners: string[] } {
  const lines = command.split('\n');
  const shell: string[] = [];
  const bodies: string[] = [];
  const owners: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    shell.push(line);
    i++;
    const delims = [...line.matchAll(HEREDOC)].map((m) => m[2]!);
    for (const d of delims) {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== d) body.push(lines[i++]!);
      i++; // the delimiter line
      bodies.push(body.join('\n'));
      owners.push(line);
    }
  }
  return { shell: shell.join('\n'), bodies, owners };
}

/** Shell words of one simple command, quotes removed (no expansion). */
export function shellWords(segment: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of segment.matchAll(re)) words.push(m[1] ?? m[2] ?? m[3] ?? '');
  return words;
}

/**
 * Simple commands of a shell text, each with its quoted text masked (same length): a separator
 * or a `>` inside quotes (`python -c "…a > b…"`, `sed 's/a|b/'`) neither splits nor redirects.
 */
function segments(shell: string): { seg: string; masked: string }[] {
  const text = shell.replace(/\\\n/g, '  ');
  const masked = text.replace(QUOTED_ARG, (q) => `${q[0]}${'_'.repeat(q.length - 2)}${q[q.length - 1]}`);
  const out: { seg: string; masked: string }[] = [];
  let from = 0;
  const push = (to: number): void => {
    const seg = text.slice(from, to);
    if (seg.trim() !== '') out.push({ seg, masked: masked.slice(from, to) });
  };
  for (const m of masked.matchAll(/\n|&&|\|\||;|\|(?!\s*$)/g)) {
    // `>|` is a redirect, not a pipe.
    if (m[0] === '|' && masked[m.index - 1] === '>') continue;
    push(m.index);
    from = m.index + m[0].length;
  }
  push(text.length);
  return out;
}

/** What a command does to a path; the ledger lists all four, memory keeps writes only. */
export type ChangeOp = 'write' | 'create' | 'delete' | 'move';
export interface PathChange {
  path: string;
  op: ChangeOp;
}

/** Flags of these commands that take a value (so the value is not a file). */
const VALUE_FLAGS: Record<string, RegExp> = {
  cp: /^(?:-t|--target-directory|-S|--suffix)$/,
  mv: /^(?:-t|--target-directory|-S|--suffix)$/,
  install: /^(?:-m|--mode|-o|--owner|-g|--group|-t|--target-directory)$/,
  truncate: /^(?:-s|--size|-r|--reference)$/,
};

function plainArgs(cmd: string, args: string[]): string[] {
  const out: string[] = [];
  const takesValue = VALUE_FLAGS[cmd];
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === '--') {
      out.push(...args.slice(k + 1));
      break;
    }
    if (a.startsWith('-') && a.length > 1) {
      if (takesValue?.test(a)) k++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** `sed -i` / `perl -i`: the files after the script (or after every `-e`). */
function inPlaceTargets(args: string[], perl: boolean): string[] {
  const inPlace = (a: string): boolean =>
    perl ? /^-[a-zA-Z]*i/.test(a) || /^-[a-zA-Z]*p?i/.test(a) : /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place');
  if (!args.some(inPlace)) return [];
  const files: string[] = [];
  let scriptSeen = args.some((a) => a === '-e' || a === '-f' || a === '--expression' || /^-[a-zA-Z]*e$/.test(a));
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === '-e' || a === '-f' || a === '--expression' || (perl && /^-[a-zA-Z]*e$/.test(a))) {
      k++;
      continue;
    }
    if (a.startsWith('-')) continue;
    if (!scriptSeen) {
      scriptSeen = true;
      continue;
    }
    files.push(a);
  }
  return files;
}

/** Changes of one simple command, `words[0]` being the command (sudo/env already skipped). */
function commandChanges(words: string[]): PathChange[] {
  let cmd = words[0]?.replace(/^.*\//, '') ?? '';
  let rest = words.slice(1);
  if (cmd === 'git' && rest.length > 0) {
    const sub = rest[0]!;
    rest = rest.slice(1);
    if (sub === 'mv') cmd = 'mv';
    else if (sub === 'rm') cmd = 'rm';
    else if (sub === 'checkout' || sub === 'restore') {
      // `git checkout -- f` / `git restore f` rewrite the files named after `--` (or all, for restore).
      const dd = rest.indexOf('--');
      const files = sub === 'restore' ? plainArgs('restore', rest) : dd >= 0 ? rest.slice(dd + 1) : [];
      return files.map((path) => ({ path, op: 'write' }));
    } else return [];
  }
  if (cmd === 'sed') return inPlaceTargets(rest, false).map((path) => ({ path, op: 'write' }));
  if (cmd === 'perl') return inPlaceTargets(rest, true).map((path) => ({ path, op: 'write' }));
  const args = plainArgs(cmd, rest);
  switch (cmd) {
    case 'tee':
    case 'truncate':
      return args.map((path) => ({ path, op: 'write' }));
    case 'touch':
    case 'mkdir':
      return args.map((path) => ({ path, op: 'create' }));
    case 'rm':
    case 'rmdir':
    case 'unlink':
      return args.map((path) => ({ path, op: 'delete' }));
    case 'cp':
    case 'install':
    case 'ln':
      return args.length >= 2 ? [{ path: args[args.length - 1]!, op: 'write' }] : [];
    case 'mv':
      if (args.length < 2) return [];
      return [
        ...args.slice(0, -1).map((path): PathChange => ({ path, op: 'delete' })),
        { path: args[args.length - 1]!, op: 'move' },
      ];
    case 'dd': {
      const of = args.find((a) => a.startsWith('of='));
      return of ? [{ path: of.slice(3), op: 'write' }] : [];
    }
  }
  return [];
}

const INTERPRETER = /(?:^|[\s/])(?:python[\d.]*|node|perl|ruby|deno|bun)(?:\s|$)/;
const WRITER = /^(?:.*\/)?(?:sed|perl|tee|touch|cp|mv|rm|rmdir|unlink|mkdir|truncate|install|ln|dd|git)$/;

/** A redirect to a file (every match holds `>`). */
export const REDIRECT = /(?<![0-9&<>])>{1,2}\|?\s*(?:(['"])([^'"\n]+)\1|([^\s'";|&<>()]+))/g;
/** Quoted text not right after a redirect: `echo "a > b"` writes nothing to `b`. */
const QUOTED_ARG = /(?<!>\s*)'[^']*'|(?<!>\s*)"(?:[^"\\]|\\.)*"/g;
const Q = `(?:r|f|b)?['"]([^'"\n]+)['"]`;
const PY_OPEN = new RegExp(`open\\(\\s*${Q}\\s*,\\s*(?:mode\\s*=\\s*)?(?:r|f)?['"][^'"]*[wax]`, 'g');
const PY_WRITE_TEXT = new RegExp(`Path\\(\\s*${Q}\\s*\\)\\s*\\.(?:write_(?:text|bytes)|touch|mkdir)\\(`, 'g');
const PY_REMOVE = new RegExp(
  `(?:os\\.(?:remove|unlink|rmdir)|shutil\\.rmtree|Path\\(\\s*${Q}\\s*\\)\\.unlink)\\(\\s*(?:${Q})?`,
  'g',
);
const PY_DEST = new RegExp(
  `(?:shutil\\.(?:copy2?|copyfile|move)|os\\.(?:rename|replace))\\(\\s*${Q}\\s*,\\s*${Q}`,
  'g',
);
const JS_WRITE = new RegExp(`(?:writeFileSync|writeFile|appendFileSync|appendFile)\\(\\s*${Q}`, 'g');

/**
 * Writes in an interpreter's own script, in this order; each pattern with literal text every one
 * of its matches holds, so a script with none of it (most: `python3 x.py`) is not searched.
 */
export const SCRIPT_WRITES: readonly {
  re: RegExp;
  needs: readonly string[];
  path: (m: RegExpExecArray) => string;
  op: ChangeOp;
}[] = [
  { re: PY_OPEN, needs: ['open('], path: (m) => m[1]!, op: 'write' },
  { re: PY_WRITE_TEXT, needs: ['Path('], path: (m) => m[1]!, op: 'write' },
  { re: JS_WRITE, needs: ['File'], path: (m) => m[1]!, op: 'write' },
  { re: PY_REMOVE, needs: ['os.', 'shutil.', 'Path('], path: (m) => m[1] ?? m[2] ?? '', op: 'delete' },
  { re: PY_DEST, needs: ['shutil.', 'os.'], path: (m) => m[2]!, op: 'write' },
];

/** A shell command split once: its heredoc bodies and its simple commands (changedPaths and callOpened read both). */
export interface ParsedShell {
  bodies: string[];
  owners: string[];
  segs: { seg: string; masked: string }[];
}
export function parseShell(command: string): ParsedShell {
  const { shell, bodies, owners } = splitHeredocs(command);
  return { bodies, owners, segs: segments(shell) };
}

/** Every path a command writes, creates, moves or deletes, in order, deduplicated by path. */
export function changedPaths(command: string): PathChange[] {
  return shellChanges(parseShell(command));
}

export function shellChanges({ bodies, owners, segs }: ParsedShell): PathChange[] {
  const out: PathChange[] = [];
  const add = (raw: string, op: ChangeOp): void => {
    const p = normalizeTarget(raw);
    if (p === null || out.some((c) => c.path === p)) return;
    out.push({ path: p, op });
  };
  const scripts = bodies.filter((_, i) => INTERPRETER.test(owners[i]!));
  for (const { seg, masked } of segs) {
    let plain = seg;
    if (masked.includes('>'))
      for (const m of masked.matchAll(REDIRECT)) {
        const at = m.index;
        const real = seg.slice(at, at + m[0].length);
        const again = new RegExp(REDIRECT.source).exec(real);
        add(again?.[2] ?? again?.[3] ?? '', 'write');
        plain = plain.slice(0, at) + ' '.repeat(m[0].length) + plain.slice(at + m[0].length);
      }
    const words = shellWords(plain.includes('<<') ? plain.replace(HEREDOC, ' ') : plain);
    // `sudo`, `env X=1`, `time` and friends: start at the first word that is a known writer.
    const start = words.findIndex((w) => WRITER.test(w));
    if (start >= 0) for (const c of commandChanges(words.slice(start))) add(c.path, c.op);
    // `python -c "…open('f', 'w')…"`: only an interpreter's own script writes now; code that a
    // command merely puts into a file (sed, cat > f.py) writes when it runs, not here.
    if (INTERPRETER.test(words.slice(0, 3).join(' '))) scripts.push(seg);
  }
  for (const text of scripts)
    for (const w of SCRIPT_WRITES) {
      if (!w.needs.some((n) => text.includes(n))) continue;
      for (const m of text.matchAll(w.re)) add(w.path(m), w.op);
    }
  return out;
}

/**
 * A command argument as a path: quotes and trailing separators gone, every other character kept
 * (`#`, spaces that were quoted, Unicode). Globs, variables alone, options and devices are not files.
 */
export function normalizeTarget(raw: string): string | null {
  const p = raw.trim();
  if (p === '' || p.length > 400 || /[\r\n\t\0]/.test(p) || /[*?]/.test(p)) return null;
  if (p.startsWith('-') || /^\$[\w{}]+$/.test(p) || /^&\d?$/.test(p)) return null;
  if (/^\/dev\//.test(p) || /^\.{1,2}\/?$/.test(p) || p === '/' || p === '~' || p === '~/') return null;
  if (isUnhelpfulPath(p)) return null;
  // A bare word with no dot or slash (`build`, `out`) is only a path if a command wrote it; keep it.
  return p;
}

/** Paths a command writes (written, created, moved to), normalized, in order, deduplicated. */
export function writtenPaths(command: string): string[] {
  return changedPaths(command)
    .filter((c) => c.op !== 'delete')
    .map((c) => normalizePath(c.path))
    .filter((p) => isPathLike(p) && !isUnhelpfulPath(p))
    .filter((p, i, a) => a.indexOf(p) === i);
}
