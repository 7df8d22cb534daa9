import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { HeldKind, HeldReason } from '@threadline/protocol';
import { readRegularFile } from '../workspace/fileAccess';
import { lstatInside, mapLimit, readInside } from '../workspace/noFollow';
import { runsLaterRule } from '../workspace/protected';
import { gitLeftover } from './gitGuard';

/**
 * What a sandboxed command left that makes code run later (issue 34): each path it created or
 * changed (sandbox/scan.ts changedSince) is matched against, in this order,
 * 1. git's rules (gitGuard.ts): a new `.git` file, what a new or existing repository's `.git`
 *    gained that git reads to run something;
 * 2. the list of workspace/protected.ts (hook managers, .envrc, editor tasks, CI workflows, agent
 *    and MCP configs, package manager configs, package.json, Makefiles, node_modules/.bin,
 *    conftest.py…) at any depth;
 * 3. what it is: a virtualenv's `bin/` (its interpreter and scripts), a link that leads out of the
 *    folder, a FIFO, socket or device, and a new or changed executable or `#!` script outside the
 *    project's sources (ignored by .gitignore, in a repository of its own, or too large for a
 *    checkpoint: where the user would not see it among the turn's changes).
 * A hit is held at once, or at the end of the turn (`when: 'turn'`: what the turn's later
 * commands use, an install's programs, a new package.json, a venv).
 */

export interface Leftover {
  /** What is held: the path (relative, `/`) of the entry taken away, a folder with all in it. */
  path: string;
  kind: HeldKind;
  reason: HeldReason;
  when: 'now' | 'turn';
}

/** A file larger than this is not in a checkpoint (checkpoints/snapshotPlan.ts's default cap). */
const CHECKPOINT_MAX_FILE = 5 * 1024 * 1024;

export function kindOf(st: Stats): HeldKind {
  if (st.isSymbolicLink()) return 'link';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  return 'device';
}

/** Whether `rel` is outside the project's sources: the user would not see it among a turn's changes. */
function sourcesOf(folder: string) {
  const rules = new Map<string, Promise<Ignore | null>>();
  const rulesOf = (dir: string): Promise<Ignore | null> => {
    let hit = rules.get(dir);
    if (!hit) {
      hit = readInside(folder, dir === '' ? '.gitignore' : `${dir}/.gitignore`, 1024 * 1024).then((text) =>
        text === null ? null : ignore().add(text),
      );
      rules.set(dir, hit);
    }
    return hit;
  };
  const exclude = readInside(folder, '.git/info/exclude', 1024 * 1024).then((t) =>
    t === null ? null : ignore().add(t),
  );
  const repoAt = new Map<string, Promise<boolean>>();
  const isRepo = (dir: string): Promise<boolean> => {
    let hit = repoAt.get(dir);
    if (!hit) {
      hit = lstatInside(folder, `${dir}/.git`).then((st) => st !== null);
      repoAt.set(dir, hit);
    }
    return hit;
  };
  return async (rel: string, st: Stats): Promise<boolean> => {
    if (st.isFile() && st.size > CHECKPOINT_MAX_FILE) return true;
    if ((await exclude)?.ignores(rel)) return true;
    const segs = rel.split('/');
    for (let i = 0; i < segs.length; i++) {
      const dir = segs.slice(0, i).join('/');
      if (i > 0 && (await isRepo(dir))) return true;
      // `ignore` tests the folders on the way too (`build/` ignores `build/x/y`).
      if ((await rulesOf(dir))?.ignores(segs.slice(i).join('/'))) return true;
    }
    return false;
  };
}

/** A name a `#!` script may have: no extension, or a script language's. */
const SCRIPT_NAME = /^[^.]+$|\.(sh|bash|zsh|py|pl|rb|js|mjs|cjs|ts|php|lua|tcl|command)$/i;

/** The first bytes of a regular file are `#!` (fileAccess.ts: never a link, never waiting). */
async function shebang(abs: string): Promise<boolean> {
  try {
    return (await readRegularFile(abs, 2)).bytes.toString('latin1') === '#!';
  } catch {
    return false;
  }
}

/** Where a link leads, when that is outside `folder` (its text resolved, and its real path when it exists). */
async function leadsOut(folder: string, realFolder: string, rel: string): Promise<boolean> {
  const abs = path.join(folder, rel);
  const inside = (p: string, root: string): boolean => p === root || p.startsWith(root + path.sep);
  try {
    const target = path.resolve(path.dirname(abs), await fs.readlink(abs));
    if (!inside(target, folder) && !inside(target, realFolder)) return true;
    const real = await fs.realpath(abs).catch(() => null);
    return real !== null && !inside(real, realFolder);
  } catch {
    return true;
  }
}

/** A virtualenv's `bin/` or `Scripts/` entry: `<venv>/bin/<x>` where `<venv>/pyvenv.cfg` exists. */
async function venvEntry(folder: string, segs: string[]): Promise<string | null> {
  for (let i = segs.length - 2; i >= 1; i--) {
    if (segs[i] !== 'bin' && segs[i] !== 'Scripts') continue;
    const venv = segs.slice(0, i).join('/');
    const cfg = await lstatInside(folder, `${venv}/pyvenv.cfg`);
    if (cfg?.isFile()) return segs.slice(0, i + 2).join('/');
  }
  return null;
}

/**
 * The leftovers among `changed` (paths relative to `folder`, `/`-separated), each held path once
 * (a folder held whole covers what is in it), parents first.
 */
export async function classifyLeftovers(
  folder: string,
  changed: readonly string[],
  platform: NodeJS.Platform,
): Promise<Leftover[]> {
  const realFolder = await fs.realpath(folder);
  const outsideSources = sourcesOf(folder);
  const known = new Map<string, boolean>();
  const sorted = [...new Set(changed)].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  const stats = await mapLimit(sorted, 32, (rel) => lstatInside(folder, rel, known));
  const out: Leftover[] = [];
  const taken: string[] = [];
  const covered = (p: string): boolean => taken.some((t) => p === t || p.startsWith(`${t}/`));
  const take = (l: Leftover): void => {
    if (covered(l.path)) return;
    out.push(l);
    taken.push(l.path);
  };
  for (let i = 0; i < sorted.length; i++) {
    const rel = sorted[i]!;
    const st = stats[i];
    if (!st || covered(rel)) continue;
    const kind = kindOf(st);
    const segs = rel.split('/');
    const git = await gitLeftover(rel, kind === 'dir' ? 'dir' : kind === 'file' ? 'file' : 'other', (p) =>
      readInside(folder, p, 1024 * 1024),
    );
    if (git !== undefined) {
      if (git !== null) {
        const held = await lstatInside(folder, git, known);
        if (held)
          take({ path: git, kind: kindOf(held), reason: git.includes('/hooks/') ? 'git_hooks' : 'git', when: 'now' });
      }
      continue;
    }
    const venv = await venvEntry(folder, segs);
    if (venv !== null) {
      const held = venv === rel ? st : await lstatInside(folder, venv, known);
      if (held) take({ path: venv, kind: kindOf(held), reason: 'bin_folder', when: 'turn' });
      continue;
    }
    const hit = runsLaterRule(rel, platform);
    if (hit) {
      // A read-only rule's folder is held whole (it did not exist: an existing one was read-only);
      // in a folder of programs (node_modules/.bin) each program is held by itself.
      const each = hit.rule.dir !== undefined && !hit.rule.readOnly;
      if (each && hit.unit === rel) continue;
      const unit = each ? segs.slice(0, hit.unit.split('/').length + 1).join('/') : hit.unit;
      const held = unit === rel ? st : await lstatInside(folder, unit, known);
      if (held) take({ path: unit, kind: kindOf(held), reason: hit.rule.reason, when: hit.rule.held });
      continue;
    }
    if (kind === 'link') {
      if (await leadsOut(folder, realFolder, rel)) take({ path: rel, kind, reason: 'link_outside', when: 'now' });
      continue;
    }
    if (kind === 'fifo' || kind === 'socket' || kind === 'device') {
      take({ path: rel, kind, reason: 'special_file', when: 'now' });
      continue;
    }
    if (kind !== 'file' || !(await outsideSources(rel, st))) continue;
    // A build writes thousands of files outside the sources: only a likely script is opened.
    const runnable =
      (st.mode & 0o111) !== 0 || (SCRIPT_NAME.test(path.basename(rel)) && (await shebang(path.join(folder, rel))));
    if (runnable) take({ path: rel, kind, reason: 'executable', when: 'turn' });
  }
  return out;
}
