import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { PROTECTED_DIRS, PROTECTED_FILES } from '../workspace/protected';
import { CREDENTIAL_PLACES } from '../workspace/reach';

/**
 * Paths inside a working folder that make code run later (protected paths: docs/glossary.md), mounted
 * read-only over the writable folder. The list is workspace/protected.ts's (the file tools ask for
 * the same places), with two differences a command needs: of `.git` only what runs or names code
 * (config, hooks, info/) is read-only, so `git add` and `git commit` still work; and
 * `node_modules/.bin` stays writable, so an install can link its binaries (file tools still ask).
 */
export const SANDBOX_READ_ONLY_IN_FOLDER: readonly string[] = Object.freeze([
  '.git/config',
  '.git/hooks',
  '.git/info',
  ...PROTECTED_DIRS.map((d) => d.dir).filter((d) => d !== '.git' && d !== 'node_modules/.bin'),
  ...PROTECTED_FILES.map((f) => f.name),
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
