import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from './fileAccess';

/**
 * File operations the app does on a working folder on its own behalf (checkpoints' snapshot, undo
 * and redo; the sandbox's clean-up and held files): on the real path, never through a link or a
 * `..`. A command may have planted a symlink anywhere (`.github -> ~/otherproj/.github`,
 * `sub -> /`), so a path is taken only when every folder between the working folder and it is a
 * real folder (lstat, not stat); its last part may be a link, which is then handled as the link
 * itself (removed, moved, listed), never as what it points at.
 *
 * Node has no openat/unlinkat, so a check and the operation after it are two calls: a process
 * swapping a folder for a link in between could still win that race. The sandboxed command whose
 * leftovers are handled has ended by then (its PID namespace dies with it).
 */

/** Whether `rel` is a plain relative path inside its root: no absolute path, no `..`, not empty. */
export function plainRelative(rel: string): boolean {
  if (rel === '' || path.isAbsolute(rel)) return false;
  return rel.split(/[\\/]+/).every((s) => s !== '..' && s !== '');
}

/**
 * `root/rel`'s folder when every folder from `root` down to it is a real folder (not a link, not
 * a file), else null. `known` caches answers across calls of one pass (folder → real or not).
 */
export async function realParent(root: string, rel: string, known?: Map<string, boolean>): Promise<string | null> {
  if (!plainRelative(rel)) return null;
  const parts = rel.split(/[\\/]+/).slice(0, -1);
  let dir = root;
  for (const part of parts) {
    dir = path.join(dir, part);
    let real = known?.get(dir);
    if (real === undefined) {
      try {
        real = (await fs.lstat(dir)).isDirectory();
      } catch {
        real = false;
      }
      known?.set(dir, real);
    }
    if (!real) return null;
  }
  return dir;
}

/** lstat of `root/rel` reached through real folders only; null when it is not there that way. */
export async function lstatInside(root: string, rel: string, known?: Map<string, boolean>): Promise<Stats | null> {
  if ((await realParent(root, rel, known)) === null) return null;
  try {
    return await fs.lstat(path.join(root, rel));
  } catch {
    return null;
  }
}

/**
 * Removes `root/rel` itself: a link (not where it leads), a file, or a folder with everything in
 * it (fs.rm does not follow the links it meets inside). False when it is not reached through real
 * folders or is not there.
 */
export async function removeInside(root: string, rel: string): Promise<boolean> {
  if ((await lstatInside(root, rel)) === null) return false;
  await fs.rm(path.join(root, rel), { recursive: true, force: true });
  return true;
}

/**
 * Moves `root/rel` itself to `dest` (a path of the app's own, whose folder exists): a rename, or
 * a copy that keeps links as links and then a removal when `dest` is on another file system.
 * Special files (FIFOs, sockets, devices) cannot be copied: across file systems they are removed
 * and the answer says `copied: false`. Null when `root/rel` is not reached through real folders.
 */
export async function moveInside(root: string, rel: string, dest: string): Promise<{ copied: boolean } | null> {
  const st = await lstatInside(root, rel);
  if (st === null) return null;
  const from = path.join(root, rel);
  try {
    await fs.rename(from, dest);
    return { copied: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
  }
  const special = !st.isFile() && !st.isDirectory() && !st.isSymbolicLink();
  if (!special) await fs.cp(from, dest, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  await fs.rm(from, { recursive: true, force: true });
  return { copied: !special };
}

/**
 * The text of `root/rel` when it is a regular file of at most `maxBytes`, reached through real
 * folders and not itself a link; null otherwise. Never waits on a FIFO (fileAccess.ts).
 */
export async function readInside(root: string, rel: string, maxBytes: number): Promise<string | null> {
  if ((await realParent(root, rel)) === null) return null;
  try {
    const { bytes, capped } = await readRegularFile(path.join(root, rel), maxBytes);
    return capped ? null : bytes.toString('utf8');
  } catch {
    return null;
  }
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results in the items' order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
