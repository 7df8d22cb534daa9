import { linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'threadline.lock';

interface LockInfo {
  pid: number;
  host: string;
  startedAt: number;
}

/** A second runtime on a data folder that one already uses. `message` is one sentence for the user. */
export class DataFolderLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockInfo | null,
  ) {
    super(
      holder
        ? `Threadline is already running with the data folder ${dataDir} (process ${holder.pid}${holder.host !== hostname() ? ` on ${holder.host}` : ''}); close it first.`
        : `Threadline is already running with the data folder ${dataDir}; close it first.`,
    );
    this.name = 'DataFolderLockedError';
  }
}

export interface DataLock {
  readonly file: string;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): void;
}

function readLock(file: string): LockInfo | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockInfo>;
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || v.pid <= 0) return null;
    return { pid: v.pid, host: typeof v.host === 'string' ? v.host : '', startedAt: Number(v.startedAt) || 0 };
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie (exited, not yet reaped by its parent) still answers kill(0): it holds nothing.
  return !isZombie(pid);
}

/** Linux: the process's state in /proc/<pid>/stat is Z (zombie) or X (dead). Elsewhere: false. */
export function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (comm) S …": comm may hold spaces and parentheses, the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

/** A lock whose process is gone (a crash, kill -9) on this machine. Another host's lock is never stale. */
function isStale(info: LockInfo | null): boolean {
  if (info === null) return true; // unreadable: a crash between create and write
  return info.host === hostname() && !alive(info.pid);
}

/**
 * Takes the data folder for this process: one runtime per data folder (two would interleave the
 * turns of one session). The lock file holds our pid; a lock whose pid is dead is taken over.
 * Throws DataFolderLockedError when a live process holds it. Call before opening the store.
 */
export function acquireDataLock(dataDir: string): DataLock {
  const file = join(dataDir, LOCK_FILE);
  const mine: LockInfo = { pid: process.pid, host: hostname(), startedAt: Date.now() };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      // O_EXCL: of two starts at the same moment exactly one creates it.
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify(mine));
      } finally {
        closeSync(fd);
      }
      return ownLock(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readLock(file);
    if (!isStale(holder)) throw new DataFolderLockedError(dataDir, holder);
    takeOverStale(file);
  }
  throw new DataFolderLockedError(dataDir, readLock(file));
}

/**
 * Moves a stale lock aside atomically (rename), so of two starts that both saw it stale only one
 * removes it. If what we moved turns out to be a live lock (the other start's fresh one), it is
 * put back (link fails rather than overwrite) and the loop refuses on the next pass.
 */
function takeOverStale(file: string): void {
  const aside = `${file}.stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch {
    return; // someone else moved it first
  }
  if (!isStale(readLock(aside))) {
    try {
      linkSync(aside, file);
    } catch {
      // a newer lock is already in place
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // already gone
  }
}

function ownLock(file: string): DataLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    if (readLock(file)?.pid !== process.pid) return; // not ours any more: leave it
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  };
  // A normal exit without close() (an uncaught error) still frees the folder.
  process.once('exit', release);
  return { file, release };
}
