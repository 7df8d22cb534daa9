/**
 * Which files a shell command writes: `sed -i`, `>`/`>>` redirects (including `cat <<EOF > f`),
 * `tee`, `cp`/`mv` destinations, `touch`, and Python `open(…, 'w')` / `write_text` in inline
 * scripts. Used by draft extraction (written artifacts) and by the recall measure.
 */
import { isPathLike, isUnhelpfulPath, normalizePath } from './paths';

const HEREDOC = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/g;

/** Split off heredoc bodies: returns the command lines without bodies, and the bodies. */
export function splitHeredocs(command: string): { shell: string; bodies: string[] } {
  const lines = command.split('\n');
  const shell: string[] = [];
  const bodies: string[] = [];
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
    }
  }
  return { shell: shell.join('\n'), bodies };
}

/** Shell words of one simple command, quotes removed (no expansion). */
export function shellWords(segment: string): string[] {
  const words: string[] = [];
  const re = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of segment.matchAll(re)) words.push(m[1] ?? m[2] ?? m[3] ?? '');
  return words;
}

function segments(shell: string): string[] {
  return shell
    .replace(/\\\n/g, ' ')
    .split(/\n|&&|\|\||;|\|/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function sedTargets(words: string[]): string[] {
  const idx = words.findIndex((w) => /(?:^|\/)sed$/.test(w));
  if (idx < 0) return [];
  const args = words.slice(idx + 1);
  if (!args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) return [];
  const files: string[] = [];
  let scriptSeen = args.some((a) => a === '-e' || a === '-f' || a === '--expression');
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === '-e' || a === '-f' || a === '--expression') {
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

function commandTargets(words: string[]): string[] {
  const cmd = words[0]?.replace(/^.*\//, '') ?? '';
  const args = words.slice(1).filter((w) => !w.startsWith('-'));
  if (cmd === 'sed') return sedTargets(words);
  if (cmd === 'tee' || cmd === 'touch') return args;
  if ((cmd === 'cp' || cmd === 'mv') && args.length >= 2) return [args[args.length - 1]!];
  return [];
}

const REDIRECT = /(?<![0-9&<>])>{1,2}\|?\s*(?:(['"])([^'"\n]+)\1|([^\s'";|&<>()]+))/g;
const PY_OPEN = /open\(\s*(?:r|f)?(['"])([^'"\n]+)\1\s*,\s*(?:mode\s*=\s*)?(?:r|f)?['"][^'"]*[wax]/g;
const PY_WRITE_TEXT = /Path\(\s*(?:r|f)?(['"])([^'"\n]+)\1\s*\)\s*\.write_(?:text|bytes)\(/g;

/** Paths a command writes, normalized, in order, deduplicated. */
export function writtenPaths(command: string): string[] {
  const out: string[] = [];
  const add = (raw: string): void => {
    const p = normalizePath(raw);
    if (isPathLike(p) && !isUnhelpfulPath(p) && !out.includes(p)) out.push(p);
  };
  const { shell, bodies } = splitHeredocs(command);
  for (const seg of segments(shell)) {
    for (const m of seg.matchAll(REDIRECT)) add(m[2] ?? m[3] ?? '');
    const words = shellWords(seg.replace(REDIRECT, ' ').replace(HEREDOC, ' '));
    // `sudo`, `env X=1` and friends: look at the first word that is a known writer.
    const start = words.findIndex((w) => /^(?:.*\/)?(?:sed|tee|touch|cp|mv)$/.test(w));
    if (start >= 0) for (const t of commandTargets(words.slice(start))) add(t);
  }
  for (const text of [shell, ...bodies]) {
    for (const m of text.matchAll(PY_OPEN)) add(m[2]!);
    for (const m of text.matchAll(PY_WRITE_TEXT)) add(m[2]!);
  }
  return out;
}

/** Files written by a structured editor tool call (OpenHands `str_replace_editor`, `write_file`…). */
export function editorWrittenPaths(toolName: string, args: Record<string, unknown>): string[] {
  const path = typeof args.path === 'string' ? args.path : typeof args.file_path === 'string' ? args.file_path : null;
  if (path === null) return [];
  const sub = typeof args.command === 'string' ? args.command : '';
  const writes =
    /write|create|edit|replace|insert|patch/i.test(toolName) && !/str_replace_editor/i.test(toolName)
      ? true
      : ['create', 'str_replace', 'insert', 'write', 'edit', 'undo_edit'].includes(sub);
  const p = normalizePath(path);
  return writes && isPathLike(p) ? [p] : [];
}
