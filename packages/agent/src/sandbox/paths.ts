import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { RUNS_LATER } from '../workspace/protected';
import { CREDENTIAL_PLACES } from '../workspace/reach';
import { GIT_RUN_PARTS } from './gitGuard';

/**
 * The read-only paths at the top of a folder (workspace/protected.ts's read-only rules, and of
 * `.git` only what git reads to run something, so `git add` and `git commit` still work). A
 * sandboxed `shell` command gets those of every depth from a scan of the folder (scan.ts); an
 * MCP server's own folder, which is not the chat's working folder, gets these.
 */
export const SANDBOX_READ_ONLY_IN_FOLDER: readonly string[] = Object.freeze([
  ...GIT_RUN_PARTS.map((p) => `.git/${p}`),
  ...RUNS_LATER.filter((r) => r.readOnly && r.dir !== '.git').flatMap((r) => r.dir ?? r.name ?? []),
]);

/**
 * Places under the home folder where credentials live (workspace/reach.ts, the same list the file
 * tools ask for): not visible inside the sandbox at all (an empty folder or file is mounted over
 * each one that exists).
 */
export const SANDBOX_HIDDEN_IN_HOME: readonly string[] = CREDENTIAL_PLACES;

/** `folder`'s protected paths that exist (mounted read-only by the sandbox). */
export function sandboxReadOnlyPaths(folder: string): string[] {
  return SANDBOX_READ_ONLY_IN_FOLDER.map((rel) => path.join(folder, rel)).filter((p) => existsSync(p));
}

function real(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * What the sandbox hides: the app's data folder, the database file with its -wal/-shm and
 * .corrupt copies (wherever they live), and the credential places that exist, each both as named
 * and where it really leads (a `~/.ssh` linked to `~/dotfiles/ssh` hides the dotfiles folder too).
 */
export function sandboxHiddenPaths(opts: { home: string; dataDir: string; dbFile: string }): string[] {
  const named = [opts.dataDir, ...SANDBOX_HIDDEN_IN_HOME.map((rel) => path.join(opts.home, rel))];
  const dbDir = path.dirname(opts.dbFile);
  const dbBase = path.basename(opts.dbFile);
  try {
    for (const f of readdirSync(dbDir)) if (f.startsWith(dbBase)) named.push(path.join(dbDir, f));
  } catch {
    // no database folder yet
  }
  const out = new Set<string>();
  for (const p of named) {
    const r = real(p);
    if (r === null) continue; // does not exist: nothing to hide
    out.add(p);
    out.add(r);
  }
  return [...out];
}
