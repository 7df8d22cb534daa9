import { existsSync, readdirSync, realpathSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { RUNS_LATER } from '../workspace/protected';
import { CREDENTIAL_PLACES, isEnvFileName } from '../workspace/reach';
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

/** Folders not searched for `.env` files (dependencies, git's own), and the bounds of the search. */
const ENV_SEARCH_SKIP = new Set(['node_modules', '.git', '.venv', 'venv', '__pycache__', 'target', 'dist', 'build']);
const ENV_SEARCH_MAX_DEPTH = 8;
const ENV_SEARCH_MAX_ENTRIES = 50_000;

/**
 * The working folder's `.env*` files and `.envs/` folders (the file tools ask for them:
 * workspace/reach.ts), which the sandbox hides too. Links are not followed; the search is bounded
 * (depth, entries), and what lies beyond the bounds is not hidden (said in the README).
 */
export function envFilesIn(folder: string): string[] {
  const out: string[] = [];
  let seen = 0;
  let level = [folder];
  for (let d = 0; d <= ENV_SEARCH_MAX_DEPTH && level.length > 0; d++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (++seen > ENV_SEARCH_MAX_ENTRIES) return out;
        const p = path.join(dir, e.name);
        if (isEnvFileName(e.name) && (e.isFile() || e.isDirectory())) out.push(p);
        else if (e.isDirectory() && !ENV_SEARCH_SKIP.has(e.name)) next.push(p);
      }
    }
    level = next;
  }
  return out;
}

/**
 * Places outside the home folder where other programs keep their sockets: the machine's temp
 * folders (X11, ssh-agent, tmux), the users' runtime folders (the session bus, gpg-agent,
 * pipewire, podman), the system bus, container engines. Folders are emptied inside the sandbox;
 * socket files are covered.
 */
export function socketPlaces(tmp: string, runtimeDir: string | undefined): { dirs: string[]; files: string[] } {
  const dirs = [tmp, '/tmp', '/var/tmp', '/run/user', '/run/dbus', '/run/docker', '/run/podman', '/run/containerd'];
  if (runtimeDir) dirs.push(runtimeDir);
  const files = ['/run/docker.sock', '/var/run/docker.sock', '/run/snapd.socket', '/run/snapd-snap.socket'];
  const real = (p: string): string | null => {
    try {
      return realpathSync(p);
    } catch {
      return null;
    }
  };
  const uniq = (ps: string[]): string[] => [...new Set(ps.map(real).filter((p): p is string => p !== null))];
  return { dirs: uniq(dirs), files: uniq(files) };
}
