import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RUNS_LATER } from '../workspace/protected';
import { lstatInside, mapLimit } from '../workspace/noFollow';

/**
 * The two looks at a working folder around a sandboxed command, each one `find` (a C walk of the
 * tree: a Node walk of a large folder costs seconds; links are never followed, `-P`):
 * - before it (`scanFolder`): every git repository's `.git` and every existing path a read-only
 *   rule of workspace/protected.ts names, at any depth, for the sandbox to mount read-only;
 * - after it (`changedSince`): every path whose status changed since a stamp taken just before it
 *   started (created, written, renamed, chmod'ed: the kernel sets ctime, which no program can set
 *   back), for sandbox/leftovers.ts to classify.
 * Neither goes into what a package manager installs (node_modules but its .bin, the packages in
 * site-packages but the files directly in it: `.pth`, sitecustomize.py), nor git's object store:
 * the bulk of a large folder, and nothing there runs by itself.
 */

/** How long a look may take before it is given up (its answer then is what it found so far). */
const FIND_DEADLINE_MS = 30_000;

export interface FolderScan {
  /** `.git` folders (relative), the folder's own first when it has one. */
  gitDirs: string[];
  /** `.git` files (`gitdir: …` of a worktree or submodule checkout). */
  gitFiles: string[];
  /** Existing paths of read-only rules (a folder rule's folder as a whole). */
  readOnly: string[];
}

/** `find` arguments that keep a walk out of installed packages and object stores (and `skip`). */
function prunes(skip: readonly string[]): string[] {
  const out = [
    '(',
    '-type',
    'd',
    '(',
    '(',
    '-path',
    '*/node_modules/*',
    '!',
    '-path',
    '*/node_modules/.bin',
    ')',
    '-o',
    '-path',
    '*/.git/objects',
    '-o',
    '-path',
    '*/site-packages/*',
    '-o',
    '-path',
    '*/dist-packages/*',
  ];
  for (const s of skip) out.push('-o', '-path', s);
  out.push(')', ')', '-prune');
  return out;
}

/** The `./rel` form find prints, for `-path` (the app's data folder when it is inside the folder). */
function insideOf(folder: string, abs: readonly string[]): string[] {
  return abs
    .map((p) => path.relative(folder, p))
    .filter((rel) => rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel))
    .map((rel) => `./${rel.split(path.sep).join('/')}`);
}

function runFind(folder: string, args: string[]): Promise<string[]> {
  return new Promise((resolve) => {
    execFile(
      'find',
      ['.', '-mindepth', '1', ...args],
      { cwd: folder, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: FIND_DEADLINE_MS, windowsHide: true },
      // A folder it could not read makes find exit 1 after listing the rest: what it listed counts.
      (_err, stdout) =>
        resolve(
          (stdout ?? Buffer.alloc(0))
            .toString('utf8')
            .split('\0')
            .filter((s) => s.startsWith('./'))
            .map((s) => s.slice(2)),
        ),
    );
  });
}

/** `-iname`/`-ipath` tests for the read-only rules (names compare case-insensitively). */
function readOnlyTests(): string[] {
  const out: string[] = [];
  for (const r of RUNS_LATER) {
    if (!r.readOnly || r.dir === '.git') continue;
    const test =
      r.dir !== undefined
        ? r.dir.includes('/')
          ? ['-ipath', `*/${r.dir}`]
          : ['-iname', r.dir]
        : r.name !== undefined
          ? ['-iname', r.name]
          : ['-iname', `*${r.suffix!}`];
    out.push(...(out.length > 0 ? ['-o'] : []), ...test);
  }
  return out;
}

/** Before a sandboxed command: what the sandbox mounts read-only (see FolderScan). */
export async function scanFolder(folder: string, skip: readonly string[] = []): Promise<FolderScan> {
  const found = await runFind(folder, [
    ...prunes(insideOf(folder, skip)),
    '-o',
    '(',
    '-name',
    '.git',
    '-print0',
    '-prune',
    ')',
    '-o',
    '(',
    ...readOnlyTests(),
    ')',
    '-print0',
    '-prune',
  ]);
  const known = new Map<string, boolean>();
  const kinds = await mapLimit(found, 32, async (rel) => {
    const st = await lstatInside(folder, rel, known);
    return st?.isDirectory() ? 'dir' : st?.isFile() ? 'file' : null;
  });
  const scan: FolderScan = { gitDirs: [], gitFiles: [], readOnly: [] };
  found.forEach((rel, i) => {
    const kind = kinds[i];
    // A link is never mounted: bwrap would follow it.
    if (kind === null) return;
    if (path.basename(rel) === '.git') (kind === 'dir' ? scan.gitDirs : scan.gitFiles).push(rel);
    else scan.readOnly.push(rel);
  });
  const depth = (p: string): number => p.split('/').length;
  scan.gitDirs.sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
  return scan;
}

/**
 * A time mark for changedSince: a file in `dir` (the app's own, which a command cannot reach)
 * whose mtime is the kernel's file clock now. The clock is coarse (a few milliseconds), so the
 * call returns only once a second file shows the clock has moved past the mark: whatever the
 * command then changes has a later ctime, and nothing changed before the mark is taken for its work.
 */
export async function takeStamp(dir: string): Promise<{ file: string; remove: () => Promise<void> }> {
  await fs.mkdir(dir, { recursive: true });
  const name = `stamp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const file = path.join(dir, name);
  const probe = path.join(dir, `${name}.tick`);
  await fs.writeFile(file, '');
  const mark = (await fs.stat(file, { bigint: true })).mtimeNs;
  // Bounded: the file clock advances every few milliseconds; each try yields to the event loop.
  for (let i = 0; i < 10_000; i++) {
    await fs.writeFile(probe, '');
    if ((await fs.stat(probe, { bigint: true })).mtimeNs > mark) break;
  }
  await fs.rm(probe, { force: true });
  return { file, remove: () => fs.rm(file, { force: true }) };
}

/** After the command: every path (relative) whose status changed after `stamp` was taken. */
export function changedSince(folder: string, stamp: string, skip: readonly string[] = []): Promise<string[]> {
  return runFind(folder, [...prunes(insideOf(folder, skip)), '-o', '-cnewer', stamp, '-print0']);
}
