import { lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { readRegularFileSync } from '../workspace/fileAccess';
import { foldersUp, repoRoot } from '../workspace/repo';

/** A file found under the searched folder. */
export interface WalkEntry {
  abs: string;
  /** Relative to the searched folder, with `/` separators (what glob patterns match). */
  rel: string;
  /** Where it really is (a link's target): the path to open. */
  real: string;
  size: number;
  mtimeMs: number;
}

export interface WalkOptions {
  /**
   * Where an entry found at `abs` may be read: the path to open (a link's target, resolved), or
   * why it is skipped (and counted): the data folder or a credential place, or a link out of reach.
   */
  reachable: (abs: string, link: boolean) => string | Skip;
  /** Called at each folder and file (a search's heartbeat: worker/serve.ts `beat`). */
  onStep?: (label: string) => void;
  /** Files looked at before the walk stops (`stats.capped`). */
  maxFiles: number;
  home: string;
  /** false: .gitignore rules are not applied (the folder is searched whole, `.git` still left out). */
  gitignore?: boolean;
  /** Only files whose path from the root passes (a glob); the others are not read or reported as skipped. */
  wanted?: (rel: string) => boolean;
}

/** Why an entry is not searched. */
export type Skip = { skip: 'protected' | 'outside' };

export interface WalkStats {
  files: number;
  /** Entries left out because they are Threadline's data folder or a credential place. */
  protectedSkipped: number;
  /** Links leading out of the working folder and the searched one (read_file would ask): not followed. */
  linksOut: number;
  /** Folders that could not be read, and links that lead nowhere or in a loop: left out. */
  unreadable: number;
  /** The walk stopped at maxFiles. */
  capped: boolean;
}

export const emptyWalkStats = (): WalkStats => ({
  files: 0,
  protectedSkipped: 0,
  linksOut: 0,
  unreadable: 0,
  capped: false,
});

/** Counts a skipped entry; true when it was one. */
export function skipped(r: string | Skip, stats: WalkStats): r is Skip {
  if (typeof r === 'string') return false;
  if (r.skip === 'protected') stats.protectedSkipped++;
  else stats.linksOut++;
  return true;
}

interface Rules {
  base: string;
  ig: Ignore;
}

/** A .gitignore is a few kilobytes; a bigger one is read this far. */
const GITIGNORE_MAX_BYTES = 1024 * 1024;

function loadRules(dir: string): Rules | null {
  let text: string;
  try {
    // A regular file only: a FIFO named .gitignore is never opened (it would wait for a writer).
    text = readRegularFileSync(path.join(dir, '.gitignore'), GITIGNORE_MAX_BYTES).bytes.toString('utf8');
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
 * folders are not followed, a link to a file only where `reachable` allows it, special files
 * (FIFOs, sockets, devices) are never yielded, and data-folder or credential entries are skipped
 * and counted. Synchronous: it runs in a search worker (tools/searchWorker.ts), never on the thread
 * that answers requests, and so touches neither that thread nor libuv's thread pool.
 */
export function* walkFiles(root: string, opts: WalkOptions, stats: WalkStats): Generator<WalkEntry> {
  const useIgnore = opts.gitignore !== false;
  const inherited: Rules[] = [];
  if (useIgnore) {
    const repo = repoRoot(root, opts.home);
    if (repo !== null) {
      const above = foldersUp(root, opts.home);
      const upTo = above.indexOf(repo);
      // From the repository root down to the searched folder's parent (the folder's own rules are read below).
      for (const dir of above.slice(1, upTo + 1).reverse()) {
        const r = loadRules(dir);
        if (r) inherited.push(r);
      }
    }
  }
  const stack: { dir: string; rules: Rules[] }[] = [{ dir: root, rules: inherited }];
  while (stack.length > 0) {
    const { dir, rules: parentRules } = stack.pop()!;
    opts.onStep?.(dir);
    let rules = parentRules;
    if (useIgnore) {
      const own = loadRules(dir);
      if (own) rules = [...parentRules, own];
    }
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      stats.unreadable++;
      continue; // unreadable folder: left out
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name === '.git') continue;
        if (useIgnore && ignored(rules, abs, true)) continue;
        if (skipped(opts.reachable(abs, false), stats)) continue;
        subdirs.push(abs);
        continue;
      }
      const link = e.isSymbolicLink();
      // FIFOs, sockets and devices are not files to search: never opened.
      if ((!e.isFile() && !link) || e.name === '.git') continue; // a worktree's `.git` is a file
      if (useIgnore && ignored(rules, abs, false)) continue;
      // Every file looked at counts toward the cap, wanted or not: a walk of a huge tree stops.
      if (stats.files >= opts.maxFiles) {
        stats.capped = true;
        return;
      }
      stats.files++;
      const rel = path.relative(root, abs).split(path.sep).join('/');
      opts.onStep?.(rel);
      if (opts.wanted && !opts.wanted(rel)) continue;
      let info;
      try {
        // A link's target is stat'ed (never opened) to know what it is; read only if reachable.
        info = link ? statSync(abs) : lstatSync(abs);
      } catch {
        stats.unreadable++;
        continue; // a dangling link or a loop, or gone meanwhile
      }
      if (!info.isFile()) continue; // a link to a folder or a special file is not followed
      const real = opts.reachable(abs, link);
      if (skipped(real, stats)) continue;
      yield { abs, rel, real, size: info.size, mtimeMs: info.mtimeMs };
    }
    // Popped last-in first: push in reverse so folders are visited in name order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push({ dir: subdirs[i]!, rules });
  }
}
