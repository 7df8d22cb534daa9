import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { foldersUp, repoRoot } from '../workspace/repo';

/** A file found under the searched folder. */
export interface WalkEntry {
  abs: string;
  /** Relative to the searched folder, with `/` separators (what glob patterns match). */
  rel: string;
  size: number;
  mtimeMs: number;
}

export interface WalkOptions {
  /** false: a data-folder or credential entry, skipped (see ToolContext.mayRead). */
  mayRead: (abs: string, symlink: boolean) => boolean;
  signal: AbortSignal;
  /** Files looked at before the walk stops (`stats.capped`). */
  maxFiles: number;
  home: string;
  /** false: .gitignore rules are not applied (the folder is searched whole, `.git` still left out). */
  gitignore?: boolean;
  /** Only files whose path from the root passes (a glob); the others are not read or reported as skipped. */
  wanted?: (rel: string) => boolean;
}

export interface WalkStats {
  files: number;
  /** Entries left out because they are Threadline's data folder or a credential place. */
  protectedSkipped: number;
  /** The walk stopped at maxFiles. */
  capped: boolean;
}

interface Rules {
  base: string;
  ig: Ignore;
}

async function loadRules(dir: string): Promise<Rules | null> {
  let text: string;
  try {
    text = await readFile(path.join(dir, '.gitignore'), 'utf8');
  } catch {
    return null;
  }
  return { base: dir, ig: ignore().add(text) };
}

function ignored(rules: readonly Rules[], abs: string, isDir: boolean): boolean {
  for (const r of rules) {
    const rel = path.relative(r.base, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    const posix = rel.split(path.sep).join('/');
    if (r.ig.ignores(isDir ? `${posix}/` : posix)) return true;
  }
  return false;
}

/**
 * Files under `root` (itself resolved), depth first in name order: `.git` and what `.gitignore`
 * files ignore are left out (those from the repository root down to `root` too), links to
 * folders are not followed, and data-folder or credential entries are skipped and counted.
 * Asynchronous throughout, so a large tree never holds up the thread that answers requests.
 */
export async function* walkFiles(root: string, opts: WalkOptions, stats: WalkStats): AsyncGenerator<WalkEntry> {
  const useIgnore = opts.gitignore !== false;
  const inherited: Rules[] = [];
  if (useIgnore) {
    const repo = repoRoot(root, opts.home);
    if (repo !== null) {
      const above = foldersUp(root, opts.home);
      const upTo = above.indexOf(repo);
      // From the repository root down to the searched folder's parent (the folder's own rules are read below).
      for (const dir of above.slice(1, upTo + 1).reverse()) {
        const r = await loadRules(dir);
        if (r) inherited.push(r);
      }
    }
  }
  const stack: { dir: string; rules: Rules[] }[] = [{ dir: root, rules: inherited }];
  while (stack.length > 0) {
    if (opts.signal.aborted) return;
    const { dir, rules: parentRules } = stack.pop()!;
    let rules = parentRules;
    if (useIgnore) {
      const own = await loadRules(dir);
      if (own) rules = [...parentRules, own];
    }
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable folder: left out
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name === '.git') continue;
        if (useIgnore && ignored(rules, abs, true)) continue;
        if (!opts.mayRead(abs, false)) {
          stats.protectedSkipped++;
          continue;
        }
        subdirs.push(abs);
        continue;
      }
      const link = e.isSymbolicLink();
      if ((!e.isFile() && !link) || e.name === '.git') continue; // a worktree's `.git` is a file
      if (useIgnore && ignored(rules, abs, false)) continue;
      // Every file looked at counts toward the cap, wanted or not: a walk of a huge tree stops.
      if (stats.files >= opts.maxFiles) {
        stats.capped = true;
        return;
      }
      stats.files++;
      const rel = path.relative(root, abs).split(path.sep).join('/');
      if (opts.wanted && !opts.wanted(rel)) continue;
      if (!opts.mayRead(abs, link)) {
        stats.protectedSkipped++;
        continue;
      }
      let info;
      try {
        info = await stat(abs);
      } catch {
        continue; // dangling link, or gone meanwhile
      }
      if (!info.isFile()) continue; // a link to a folder is not followed
      yield { abs, rel, size: info.size, mtimeMs: info.mtimeMs };
    }
    // Popped last-in first: push in reverse so folders are visited in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push({ dir: subdirs[i]!, rules });
  }
}
