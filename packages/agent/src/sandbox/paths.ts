import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * Paths inside a working folder that make code run later (SPEC §7 "protected paths"): git's
 * config, hooks and info, hook managers, editor and dev-container settings that run tasks, CI
 * workflows, direnv, package-manager settings and the files that define scripts. The sandbox
 * mounts each one that exists read-only over the writable folder.
 *
 * One list for the sandbox; the protected-path classifier of the file tools (issue 21, part P)
 * is to share it.
 */
export const SANDBOX_READ_ONLY_IN_FOLDER = [
  '.git/config',
  '.git/hooks',
  '.git/info',
  '.husky',
  '.githooks',
  '.vscode',
  '.idea',
  '.devcontainer',
  '.github/workflows',
  '.envrc',
  'package.json',
  'Makefile',
  'makefile',
  'GNUmakefile',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
];

/**
 * Places under the home folder where credentials live: not visible inside the sandbox at all
 * (an empty folder or file is mounted over each one that exists).
 */
export const SANDBOX_HIDDEN_IN_HOME = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.netrc',
  '.kube',
  '.docker/config.json',
  '.git-credentials',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.azure',
  '.npmrc',
  '.pypirc',
  '.pgpass',
  '.my.cnf',
];

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
