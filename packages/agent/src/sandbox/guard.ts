import { lstatSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { readRegularFileSync } from '../workspace/fileAccess';
import { SANDBOX_READ_ONLY_IN_FOLDER } from './paths';

/**
 * The sandbox mounts the protected paths of a folder read-only only where they exist: one that
 * does not exist yet (a `.vscode/` to plant `tasks.json` in, an `.envrc`) could be created by a
 * sandboxed command. So the ones missing before a command are noted, and what the command made
 * of them is taken away after it (and the model told): creating them needs a run outside the
 * sandbox, which asks. A repository the command created itself (`git init`, `git clone`) is kept,
 * but stripped of what would run: hooks that are not `.sample`, and a config with any key beyond
 * a plain repository's.
 */
export interface ProtectedBefore {
  /** Protected paths (relative) that did not exist. */
  missing: string[];
  /** Whether `.git` existed (file or folder). */
  git: boolean;
}

export function protectedBefore(folder: string): ProtectedBefore {
  return {
    missing: SANDBOX_READ_ONLY_IN_FOLDER.filter((rel) => !exists(path.join(folder, rel))),
    git: exists(path.join(folder, '.git')),
  };
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Keys a fresh `git init` / `git clone` writes: nothing in them runs a program. */
const PLAIN_GIT_KEYS = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks)$/,
  /^remote\.[^=]+\.(url|fetch|pushurl|tagopt|prune)$/,
  /^branch\.[^=]+\.(remote|merge|rebase)$/,
  /^extensions\.(objectformat|worktreeconfig|refstorage)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
];

/** Whether a git config file holds only plain repository keys (anything unreadable is not plain). */
export function plainGitConfig(text: string): boolean {
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]$/.exec(line);
    if (head) {
      section = head[2] !== undefined ? `${head[1]!.toLowerCase()}.${head[2]}` : head[1]!.toLowerCase();
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(=.*)?$/.exec(line);
    if (!kv || section === '') return false;
    const key = `${section}.${kv[1]!.toLowerCase()}`;
    if (!PLAIN_GIT_KEYS.some((re) => re.test(key))) return false;
  }
  return true;
}

/**
 * After a sandboxed command: removes what it created at protected paths that were missing
 * before (protectedBefore). Returns the paths removed, relative to `folder`.
 */
export function removeCreatedProtected(folder: string, before: ProtectedBefore): string[] {
  const removed: string[] = [];
  const remove = (rel: string): void => {
    rmSync(path.join(folder, rel), { recursive: true, force: true });
    removed.push(rel);
  };
  const gitNow = path.join(folder, '.git');
  // A new `.git` file (`gitdir: <somewhere>`) points git at a config nothing protects.
  if (!before.git && exists(gitNow) && !isDir(gitNow)) remove('.git');
  const freshRepo = !before.git && isDir(gitNow);
  for (const rel of before.missing) {
    if (!exists(path.join(folder, rel))) continue;
    if (rel.startsWith('.git/') && freshRepo) {
      if (rel === '.git/hooks') {
        for (const f of readdirSync(path.join(folder, rel))) if (!f.endsWith('.sample')) remove(path.join(rel, f));
      } else if (rel === '.git/config' && !plainGitConfig(readText(path.join(folder, rel)))) remove(rel);
      continue;
    }
    remove(rel);
  }
  return removed;
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A git config is a few hundred bytes; past this it is not a plain one. */
const GIT_CONFIG_MAX_BYTES = 64 * 1024;

/** A regular file's text; a FIFO, device or link a command left in its place is never opened (not plain). */
function readText(p: string): string {
  try {
    const { bytes, capped } = readRegularFileSync(p, GIT_CONFIG_MAX_BYTES);
    return capped ? '\u0000too large' : bytes.toString('utf8');
  } catch {
    return '\u0000unreadable';
  }
}
