/**
 * Path recognition for memory drafts: Windows (`C:\…`, UNC), POSIX absolute, home (`~/…`) and
 * project-relative paths (`src/foo.py`, `./x`, a bare file name with a known extension).
 */

/** Extensions a bare file name must carry to count as a path (`reproduce.py`, not `e.g.`). */
const KNOWN_EXTENSIONS = new Set(
  (
    'py pyi pyx ts tsx js jsx mjs cjs json jsonl md rst txt toml yaml yml cfg ini conf sh bash zsh ps1 bat cmd ' +
    'rs go c h cc cpp hpp java kt rb php pony swift cs html htm css scss vue svelte sql xml csv tsv log lock ' +
    'env gradle mk cmake patch diff diff docx xlsx pptx pdf png jpg jpeg gif svg zip tar gz tgz whl ipynb ' +
    'ico webp bmp woff woff2 ttf mp3 wav mp4 tmp bak out zst bz2 xz 7z proto graphql tf hcl sum mod'
  ).split(' '),
);

/** Top-level directories a one-segment absolute path may name (`/tmp`, not `/returncode`). */
const ROOT_DIRS = new Set(
  'tmp testbed workspace home root opt srv var etc usr mnt data app repo src code project projects'.split(' '),
);

const DATE_ONLY = /^\d{1,4}[/.-]\d{1,2}(?:[/.-]\d{1,4})?$/;
const WINDOWS_ABS = /^(?:[A-Za-z]:[\\/]|\\\\[^\\\s]+\\)/;
const SEGMENT = /^[\p{L}\p{N}\p{M}_.@+~\-#%=,' ()[\]]+$/u;
/** A POSIX segment: every character a file name commonly has (`#`, Unicode), spaces when quoted. */
const POSIX_SEGMENT = /^[\p{L}\p{N}\p{M}_.@+~\-#%=,' ()[\]]+$/u;
/** `.md`, `.py`: an extension alone is never a path; these dot-files are. */
const DOTFILES = new Set(['.env', '.envrc', '.npmrc', '.bashrc', '.zshrc', '.profile', '.gitignore', '.editorconfig']);

/** `2024/7/19`, `2025-04-30`, `7/19`: date-like strings that path patterns would otherwise catch. */
export function isDateOnly(text: string): boolean {
  return DATE_ONLY.test(text.trim());
}

/**
 * Trim quotes, trailing punctuation, a `:line[:col]` suffix and grep's `-line-` context suffix
 * (`x.py-850-`), and the `@` of a mention (`@src/app.ts`: Cursor and Claude Code name a file so);
 * keep the path itself, as it is used.
 */
export function normalizePath(raw: string): string {
  let p = raw.trim().replace(/^['"`(<[]+|['"`)>\],;]+$/g, '');
  p = p.replace(/(?:[.,;:!?。，；：！？、])+$/, '');
  p = p.replace(/:\d+(?::\d+)?$/, '');
  p = p.replace(/(\.[A-Za-z][A-Za-z0-9]{0,7})-\d+-?$/, '$1');
  if (/^@[^@\s]*[\\/.]/.test(p)) p = p.slice(1);
  return p;
}

/** True when the whole string is one path (spaces allowed only in Windows paths). */
export function isPathLike(text: string): boolean {
  const p = text.trim();
  if (p.length < 2 || p.length > 400 || /[\r\n\t]/.test(p)) return false;
  if (isDateOnly(p) || /^[a-z][\w+.-]*:\/\//i.test(p)) return false;
  if (WINDOWS_ABS.test(p)) {
    const rest = p.replace(WINDOWS_ABS, '');
    // `e:\n` in code is an escape, not a drive: a drive path needs a real first segment.
    if (rest.length < 2 && !/^[A-Z]:\\$/.test(p)) return false;
    return rest.split(/[\\/]/).every((s) => s === '' || SEGMENT.test(s));
  }
  // Spaces only inside an anchored path (`/home/u/My Documents/a.md`, as quoted): prose has no `/` first.
  // Spaces only in what a quote kept whole: an anchored path, or folders down to a file name with
  // an extension (`my notes/a.md`); prose has neither shape.
  if (
    /\s/.test(p) &&
    ((!/^(?:~|\.{1,2})?\//.test(p) && !/\/[^/]*\.[A-Za-z][A-Za-z0-9]{0,7}$/.test(p)) ||
      /[\t\r\n]|\s{2,}|\s\/|\/\s|^\s|\s$/.test(p))
  )
    return false;
  if (/^\.[A-Za-z0-9]{1,10}$/.test(p) && !DOTFILES.has(p.toLowerCase())) return false;
  // `s/old/new/g`, `1,10s/a/b/`: a sed expression, not a path.
  if (/^(?:\d+(?:,\d+)?)?s\/[^/]*\/[^/]*\/[gip\d]*$/.test(p)) return false;
  let body = p;
  if (body.startsWith('~/')) body = body.slice(2);
  else if (body.startsWith('/')) body = body.slice(1);
  else if (body.startsWith('./')) body = body.slice(2);
  else if (body.startsWith('../')) body = body.replace(/^(?:\.\.\/)+/, '');
  if (body === '') return p === '~/' ? false : p !== '/';
  const segs = body.split('/').filter((s) => s !== '');
  if (segs.length === 0 || !segs.every((s) => POSIX_SEGMENT.test(s))) return false;
  if (!segs.some((s) => /[\p{L}_]/u.test(s))) return false;
  // Spaces: only in an absolute or home path of two segments or more (the quoted form).
  if (/\s/.test(body) && segs.length < 2) return false;
  const last = segs[segs.length - 1]!;
  const ext = /\.([A-Za-z][A-Za-z0-9]{0,7})$/.exec(last);
  const hasExt = ext !== null && KNOWN_EXTENSIONS.has(ext[1]!.toLowerCase());
  if (p.startsWith('/') && segs.length === 1) return hasExt || ROOT_DIRS.has(last.toLowerCase());
  if (p !== body) return true; // ~/x, ./x, ../x
  // `tabs/spaces`, `Europe/Paris`, `s/foo/bar`: two words with a slash are prose, not a path.
  if (segs.length > 1) return hasExt || segs.length >= 3 || p.endsWith('/');
  return hasExt;
}

const QUOTED = /(['"`])([^'"`\r\n]{2,300})\1/g;
const WIN_TOKEN = /(?<![\w])(?:[A-Za-z]:[\\/]|\\\\)[^\s'"`<>|*?\r\n]*/g;
const POSIX_TOKEN =
  /(?<![\p{L}\p{N}_.$%:/\\#-])(?:~\/|\.{1,2}\/|\/)?[\p{L}\p{N}\p{M}_.@+#-]+(?:\/[\p{L}\p{N}\p{M}_.@+#-]*)*/gu;

/**
 * Every path-like substring of a line, normalized and deduplicated, in order of appearance.
 * Quoted strings are tried whole first so Windows paths with spaces survive.
 */
export function findPaths(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (raw: string): void => {
    const p = normalizePath(raw);
    if (!isPathLike(p) || seen.has(p)) return;
    seen.add(p);
    out.push(p);
  };
  const noUrls = text
    .replace(/\b[a-z][\w+.-]*:\/\/\S+/gi, ' ')
    .replace(/<\/?[A-Za-z][\w-]*>/g, ' ')
    // `diff --git a/x b/x`, `--- a/x`, `+++ b/x`: the a/ and b/ are git's prefixes, not folders.
    .replace(/^(?:diff --git|---|\+\+\+) .*$/gm, (l) => l.replace(/(\s)[ab]\//g, '$1'));
  let rest = noUrls;
  for (const m of noUrls.matchAll(QUOTED)) {
    const inner = normalizePath(m[2]!);
    if (isPathLike(inner)) {
      add(inner);
      rest = rest.replace(m[0], ' ');
    }
  }
  for (const m of rest.matchAll(WIN_TOKEN)) add(m[0]);
  const noWin = rest.replace(WIN_TOKEN, ' ');
  for (const m of noWin.matchAll(POSIX_TOKEN)) {
    const tok = m[0];
    if (!tok.includes('/')) {
      if (!/\.[A-Za-z]/.test(tok) || /^#/.test(tok)) continue;
      // `math.log(x)`, `from django.conf import`: dotted code names, not files.
      if (
        noWin[m.index + tok.length] === '(' ||
        /\b(?:from|import)\s+$/.test(noWin.slice(Math.max(0, m.index - 8), m.index))
      )
        continue;
    }
    add(tok);
  }
  return out;
}

/** A file name worth remembering: not a system/device path, not a bare directory marker. */
export function isUnhelpfulPath(p: string): boolean {
  const lower = p.toLowerCase().replace(/\\/g, '/');
  if (/^(?:\/|~\/?|\.\.?\/?)$/.test(lower)) return true;
  if (/^\/(?:dev|proc|sys)(?:\/|$)/.test(lower)) return true;
  // `/path/to/file`, `path/to/your/dir`: placeholders of instructions and docs.
  if (/(?:^|\/)path\/to\//.test(lower)) return true;
  if (/^\/(?:usr\/)?(?:s?bin)\/[\w.+-]+$/.test(lower)) return true;
  if (/(?:^|\/)(?:\.git|node_modules|__pycache__|site-packages|dist-packages)(?:\/|$)/.test(lower)) return true;
  if (/\.pyc$/.test(lower)) return true;
  // A known folder spelled through the home variable ("~/Desktop", "$env:USERPROFILE\Desktop") is
  // the probe itself, not knowledge: the fact worth keeping is the real path the gate reuses.
  if (/^(?:~|\$home|\$\{home\}|\$env:userprofile|%userprofile%)\/(?:desktop|documents|downloads)\/?$/.test(lower))
    return true;
  return false;
}
