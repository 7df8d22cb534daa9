import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Start-up failures of the data folder as one sentence (issue 25): a read-only or full disk, or
 * no permission, instead of a raw `EROFS: read-only file system, open '…'` line. Both shells (the
 * desktop's runtime.ts, browser mode) pass what the folder's creation, its lock and the store's
 * opening throw through here. `how` says how to choose another folder in that shell.
 */
export function dataFolderFailure(err: unknown, dataDir: string, how: string): string | null {
  // The store's errors keep SQLite's (SQLITE_READONLY, SQLITE_FULL) as their cause.
  let code: unknown;
  for (let e = err as { code?: unknown; cause?: unknown } | null, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    code = e.code;
    if (typeof code === 'string' && /^(E|SQLITE_)/.test(code)) break;
  }
  if (code === 'SQLITE_READONLY') code = 'EROFS';
  // SQLite's shared-memory file could not grow: on a full disk that is where WAL mode fails first.
  if (code === 'SQLITE_FULL' || code === 'SQLITE_IOERR_SHMSIZE') code = 'ENOSPC';
  if (code === 'EROFS') return `The data folder ${dataDir} is on a read-only disk; ${how}.`;
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return `The disk of the data folder ${dataDir} is full; free some space and start Threadline again.`;
  if (code === 'EACCES' || code === 'EPERM') return `Threadline may not write in the data folder ${dataDir}; ${how}.`;
  return null;
}

/** Runs a start-up step on the data folder; its failure becomes one sentence (the cause kept). */
export function onDataFolder<T>(dataDir: string, how: string, step: () => T): T {
  try {
    return step();
  } catch (err) {
    const sentence = dataFolderFailure(err, dataDir, how);
    if (sentence === null) throw err;
    throw new Error(sentence, { cause: err });
  }
}

/**
 * Creates the data folder (0700). Node's recursive mkdir reports a read-only disk as ENOENT: the
 * first missing folder is then made alone, which fails with the real cause.
 */
export function ensureDataFolder(dataDir: string, how: string): void {
  onDataFolder(dataDir, how, () => {
    try {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      let missing = dataDir;
      while (!existsSync(dirname(missing)) && dirname(missing) !== missing) missing = dirname(missing);
      mkdirSync(missing, { mode: 0o700 });
      throw err;
    }
  });
}
