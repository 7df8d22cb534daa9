/**
 * Where the names a listing prints are: `ls src` prints `app.ts` for `src/app.ts`, `cd web && ls`
 * prints names of `web/`, `ls -R` prints a `dir:` header before each folder's names. A name is
 * recorded at its place, never at the root it is not in (a mis-rooted path); a name whose folder
 * the output no longer says (`ls -R … | grep x`) is not recorded at all.
 */
import { shellWords } from './shellWrites';

export interface ListingRoots {
  /** Whether a line of the output is a folder header (`src/lib:`), which then places what follows. */
  header(rawLine: string): boolean;
  /** Where a path found in the output is, from the session's folder; null when that cannot be known. */
  place(path: string): string | null;
}

const ANCHORED = /^(?:[/~\\]|[A-Za-z]:[\\/]|\$)/;

function join(dir: string | null, p: string): string {
  if (dir === null || dir === '' || dir === '.' || ANCHORED.test(p)) return p;
  const rel = p.replace(/^\.\//, '');
  const base = dir.replace(/[\\/]+$/, '').replace(/^\.\//, '');
  if (base === '' || base === '.') return rel;
  return rel.startsWith(`${base}/`) ? rel : `${base}/${rel}`;
}

/** The roots of one listing command's output (`cwd`: the folder it ran in, when it says). */
export function rootedListing(command: string, cwd: string | null): ListingRoots {
  // The listing is the first simple command after an optional `cd dir &&`.
  const first =
    command
      .replace(/^\s*(?:cd|pushd)\s+\S+\s*(?:&&|;)\s*/, '')
      .split(/\||&&|;/)[0]
      ?.trim() ?? '';
  const piped = /\|/.test(command);
  const words = shellWords(first);
  const isLs = /^(?:ls|dir|gci|Get-ChildItem)$/i.test(words[0] ?? '');
  const flags = words.slice(1).filter((w) => w.startsWith('-'));
  const args = words.slice(1).filter((w) => !w.startsWith('-'));
  const recursive = isLs && flags.some((f) => /^-[a-zA-Z]*R/.test(f) || f === '--recursive' || /^-Recurse$/i.test(f));
  // `ls dir`: names of dir; `ls a b` or `ls -R`: each section after its header.
  let base: string | null = isLs && args.length === 1 && !/[*?[]/.test(args[0]!) ? join(cwd, args[0]!) : cwd;
  const sections = isLs && (recursive || args.length > 1);
  let headerSeen = false;
  return {
    header(raw) {
      if (!sections) return false;
      const m = /^(\S.*):\s*$/.exec(raw.trim());
      if (!m) return false;
      base = join(cwd, m[1]!);
      headerSeen = true;
      return true;
    },
    place(p) {
      if (!isLs) return join(cwd, p);
      // `ls a/b.txt` prints its argument as given: from the folder it ran in.
      const arg = args.find((a) => a === p || a.replace(/[\\/]+$/, '') === p || a.endsWith(`/${p}`));
      if (arg !== undefined) return join(cwd, arg.replace(/[\\/]+$/, ''));
      if (/[\\/]/.test(p)) return join(sections ? base : cwd, p);
      // A recursive listing piped through a filter lost its headers: the name's folder is unknown.
      if (sections && !headerSeen && (piped || recursive)) return null;
      return join(base, p);
    },
  };
}
