/**
 * What project memory asks of the disk: a project's root, and a path's state (a file's size and
 * modification time, a folder). Asynchronous (the thread that answers requests never waits on a
 * slow disk), every call under a deadline, nothing ever opened: `realpath` and `lstat` read no
 * file's content, so a FIFO or a device is only looked at (its kind by workspace/fileAccess.ts'
 * `kindOf`), and a path whose real place is outside the project (a planted link) is reported as
 * such, never followed further. A link inside the project to another place in it is followed: the
 * fact is the real path.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { PathFingerprint } from '@threadline/protocol';
import { foldersUp } from '../workspace/repo';
import { within } from '../workspace/reach';
import { kindOf } from '../workspace/fileAccess';

/** One file-system call at most this long; past it the answer is "unknown" (null). */
export const DISK_CALL_MS = 2_000;

/** The call's answer, or null when it did not come within `ms` (the call itself goes on). */
export function withDeadline<T>(work: Promise<T>, ms = DISK_CALL_MS): Promise<T | null> {
  return new Promise<T | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    timer.unref?.();
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(null);
      },
    );
  });
}

/** Where a path really leads, or `missing` (not there, a link loop, unreadable), or null (no answer in time). */
async function real(p: string): Promise<string | 'missing' | null> {
  return withDeadline(realpath(p).catch(() => 'missing' as const));
}

/**
 * The project a folder belongs to: its repository's root (the nearest folder at or above it
 * holding `.git`, not above the home folder), else the folder itself; by realpath, so a folder
 * reached through a symlink has the same project. null: the folder does not exist (yet) or did
 * not answer in time.
 */
export async function projectRootOf(folder: string, home: string): Promise<string | null> {
  const at = await real(folder);
  if (at === null || at === 'missing') return null;
  const homeReal = await real(home);
  const stop = typeof homeReal === 'string' && homeReal !== 'missing' ? homeReal : home;
  for (const dir of foldersUp(at, stop)) {
    const git = await withDeadline(
      lstat(path.join(dir, '.git')).then(
        () => true,
        () => false,
      ),
    );
    if (git === null) return null;
    if (git) return dir;
  }
  return at;
}

export type PathState =
  { state: 'there'; real: string; fingerprint: PathFingerprint } | { state: 'missing' | 'outside' | 'unknown' };

/**
 * A path as it is now (absolute): where it really leads, a file's size and modification time, a
 * folder (its own time changes with every entry: only that it is one), or why it is no path of the
 * project `root` (a realpath). A FIFO, socket or device is `missing` as a fact's path.
 */
export async function pathState(root: string, abs: string, platform: NodeJS.Platform): Promise<PathState> {
  const at = await real(path.resolve(root, abs));
  if (at === null) return { state: 'unknown' };
  if (at === 'missing') return { state: 'missing' };
  if (!within(at, root, platform)) return { state: 'outside' };
  const st = await withDeadline(lstat(at));
  if (st === null) return { state: 'unknown' };
  const kind = kindOf(st);
  if (kind === 'directory') return { state: 'there', real: at, fingerprint: { type: 'dir', size: 0, mtimeMs: 0 } };
  if (kind !== 'file') return { state: 'missing' };
  return { state: 'there', real: at, fingerprint: { type: 'file', size: st.size, mtimeMs: st.mtimeMs } };
}

/** Whether a path is as it was verified: same type, and a file of the same size and modification time. */
export function sameAsVerified(now: PathFingerprint, then: PathFingerprint | null): boolean {
  if (then === null) return true;
  if (now.type !== then.type) return false;
  return now.type === 'dir' || (now.size === then.size && now.mtimeMs === then.mtimeMs);
}
