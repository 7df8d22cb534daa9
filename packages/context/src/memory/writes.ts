/**
 * Which files a shell command writes: `sed -i`, `>`/`>>` redirects (including `cat <<EOF > f`),
 * `tee`, `cp`/`mv` destinations, `touch`, and Python `open(…, 'w')` / `write_text` in inline
 * scripts. Used by draft extraction (written artifacts) and by the recall measure.
 */
import { isPathLike, isUnhelpfulPath, normalizePath } from './paths';

const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/g;

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

const REDIRECT = /(?<![0-9&<>])>{1,2}\|?\s*(?:(['"])([^'"\n]+)\1|([^\s'";|&<>()]+))/g;
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

/** Every path a command writes, creates, moves or deletes, in order, deduplicated by path. */
export function changedPaths(command: string): PathChange[] {
  const out: PathChange[] = [];
  const add = (raw: string, op: ChangeOp): void => {
    const p = normalizeTarget(raw);
    if (p === null || out.some((c) => c.path === p)) return;
    out.push({ path: p, op });
  };
  const { shell, bodies, owners } = splitHeredocs(command);
  const scripts = bodies.filter((_, i) => INTERPRETER.test(owners[i]!));
  for (const { seg, masked } of segments(shell)) {
    let plain = seg;
    for (const m of masked.matchAll(REDIRECT)) {
      const at = m.index;
      const real = seg.slice(at, at + m[0].length);
      const again = new RegExp(REDIRECT.source).exec(real);
      add(again?.[2] ?? again?.[3] ?? '', 'write');
      plain = plain.slice(0, at) + ' '.repeat(m[0].length) + plain.slice(at + m[0].length);
    }
    const words = shellWords(plain.replace(HEREDOC, ' '));
    // `sudo`, `env X=1`, `time` and friends: start at the first word that is a known writer.
    const start = words.findIndex((w) => WRITER.test(w));
    if (start >= 0) for (const c of commandChanges(words.slice(start))) add(c.path, c.op);
    // `python -c "…open('f', 'w')…"`: only an interpreter's own script writes now; code that a
    // command merely puts into a file (sed, cat > f.py) writes when it runs, not here.
    if (INTERPRETER.test(words.slice(0, 3).join(' '))) scripts.push(seg);
  }
  for (const text of scripts) {
    for (const m of text.matchAll(PY_OPEN)) add(m[1]!, 'write');
    for (const m of text.matchAll(PY_WRITE_TEXT)) add(m[1]!, 'write');
    for (const m of text.matchAll(JS_WRITE)) add(m[1]!, 'write');
    for (const m of text.matchAll(PY_REMOVE)) add(m[1] ?? m[2] ?? '', 'delete');
    for (const m of text.matchAll(PY_DEST)) add(m[2]!, 'write');
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

const PATH_KEYS = ['path', 'file_path', 'filePath', 'target_file', 'targetFile', 'file', 'filename', 'fileName'];
const DEST_KEYS = ['new_path', 'newPath', 'destination', 'dest', 'to', 'target'];
/** Sub-commands of multi-purpose editors (OpenHands `str_replace_editor`) that change the file. */
const EDIT_SUBCOMMANDS = new Set(['create', 'str_replace', 'insert', 'write', 'edit', 'undo_edit', 'append', 'delete']);
const EDIT_TOOL = /write|create|edit|replace|insert|patch|append|save|rename|move|delete|remove/i;
const DELETE_TOOL = /delete|remove|unlink/i;
/** Headers of unified and `apply_patch` patches: the files a patch text changes. */
const PATCH_HEADER = /^(?:\*\*\* (Add|Update|Delete) File: (.+)|\+\+\+ (?:b\/)?(.+)|\*\*\* Move to: (.+))$/gm;

function stringArg(args: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const k of keys) {
    const v = args[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return null;
}

/** Files a patch text names in its headers. */
export function patchChanges(text: string): PathChange[] {
  const out: PathChange[] = [];
  for (const m of text.matchAll(PATCH_HEADER)) {
    const raw = (m[2] ?? m[3] ?? m[4] ?? '').replace(/\t.*$/, '').trim();
    const p = normalizeTarget(raw);
    if (p === null || p === 'dev/null' || p === '/dev/null' || out.some((c) => c.path === p)) continue;
    out.push({ path: p, op: m[1] === 'Delete' ? 'delete' : m[1] === 'Add' ? 'create' : 'write' });
  }
  return out;
}

/**
 * Files a structured (non-shell) tool call changes: its path argument when the tool or its
 * sub-command edits; the headers of a patch it carries; else, for an edit call with no path at
 * all, the last path the assistant named in the same message (`named`).
 */
export function editorChanges(
  toolName: string,
  args: Record<string, unknown>,
  named: readonly string[] = [],
): PathChange[] {
  const sub = typeof args.command === 'string' ? args.command : '';
  const multi = /str_replace_editor|editor$/i.test(toolName) && sub !== '';
  const edits = multi ? EDIT_SUBCOMMANDS.has(sub) : EDIT_TOOL.test(toolName);
  if (!edits) return [];
  const op: ChangeOp =
    DELETE_TOOL.test(toolName) || sub === 'delete' ? 'delete' : sub === 'create' ? 'create' : 'write';
  const out: PathChange[] = [];
  const path = stringArg(args, PATH_KEYS);
  const dest = stringArg(args, DEST_KEYS);
  if (path !== null) {
    const p = normalizeTarget(path);
    if (p !== null) out.push({ path: p, op: dest !== null ? 'delete' : op });
  }
  if (dest !== null) {
    const d = normalizeTarget(dest);
    if (d !== null) out.push({ path: d, op: 'move' });
  }
  if (out.length > 0) return out;
  for (const v of Object.values(args))
    if (typeof v === 'string' && /^(?:\*\*\*|\+\+\+) /m.test(v)) out.push(...patchChanges(v));
  if (out.length > 0) return out;
  const last = named.at(-1);
  return last !== undefined ? [{ path: last, op }] : [];
}

/** Files written by a structured editor tool call (OpenHands `str_replace_editor`, `write_file`…). */
export function editorWrittenPaths(toolName: string, args: Record<string, unknown>): string[] {
  return editorChanges(toolName, args)
    .filter((c) => c.op !== 'delete')
    .map((c) => normalizePath(c.path))
    .filter((p) => isPathLike(p));
}

const SHELL_TOOL = /shell|terminal|bash|exec|command|run|powershell|cmd/i;

/**
 * Files one assistant message's tool calls change: shell commands through `changedPaths`, other
 * tools through `editorChanges` (a path-less edit call takes the last path the message named).
 * `findNamed` is injected (paths.findPaths) to keep this module free of the prose parser.
 */
export function messageChanges(
  m: { content?: string | null; tool_calls?: readonly { function: { name: string; arguments: string } }[] },
  findNamed: (text: string) => string[],
): PathChange[] {
  const out: PathChange[] = [];
  let named: string[] | null = null;
  for (const tc of m.tool_calls ?? []) {
    let args: Record<string, unknown> = {};
    try {
      const v: unknown = JSON.parse(tc.function.arguments);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) args = v as Record<string, unknown>;
    } catch {
      // Not JSON: a shell tool may take the raw command line.
      if (SHELL_TOOL.test(tc.function.name)) args = { command: tc.function.arguments };
    }
    const cmd = ['command', 'cmd', 'script'].map((k) => args[k]).find((v) => typeof v === 'string' && v.trim() !== '');
    const editor = /editor|edit_file|write_file|apply_patch/i.test(tc.function.name);
    let changes: PathChange[];
    if (typeof cmd === 'string' && !editor) changes = changedPaths(cmd);
    else {
      named ??= findNamed((m.content ?? '').slice(0, 20_000));
      changes = editorChanges(tc.function.name, args, named);
    }
    for (const c of changes) if (!out.some((o) => o.path === c.path)) out.push(c);
  }
  return out;
}
