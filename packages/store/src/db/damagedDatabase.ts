// A damaged database at start-up (issue 25): the one home of the rule both shells follow. The
// damage itself is found by openDatabase (connection.ts: header, truncation, quick_check, SQLite's
// SQLITE_CORRUPT / SQLITE_NOTADB); here is what counts as damage to offer a fresh database for, and
// how the damaged file is kept: renamed beside itself under a dated name, never deleted.
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import { StoreError } from '../types';

/** SQLite's side files of a database in WAL mode; they belong to its bytes. */
export const SIDE_FILES = ['-wal', '-shm'] as const;

/** A StoreError saying the database file is damaged or not a database (what a fresh start fixes). */
export function isDamagedDatabase(err: unknown): err is StoreError {
  return err instanceof StoreError && (err.code === 'corrupt' || err.code === 'not_sqlite');
}

const taken = (name: string): boolean => [name, ...SIDE_FILES.map((s) => name + s)].some((f) => existsSync(f));

/** A free dated name beside the file: `<file>.corrupt-<UTC timestamp>[-n]` (no earlier copy is overwritten). */
export function damagedCopyName(file: string, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  let name = `${file}.corrupt-${stamp}`;
  for (let i = 1; taken(name); i++) name = `${file}.corrupt-${stamp}-${i}`;
  return name;
}

/** Copies the file and its side files to a dated name; the original stays as it is. */
export function copyDamagedAside(file: string, now: number): string {
  const backup = damagedCopyName(file, now);
  copyFileSync(file, backup);
  for (const s of SIDE_FILES) if (existsSync(file + s)) copyFileSync(file + s, backup + s);
  return backup;
}

/**
 * Renames the file and its side files to `keepAs` (or, when that is taken, a free dated name):
 * the damaged bytes stay beside the new database, nothing is deleted. Returns the name used.
 */
export function moveDamagedAside(file: string, now: number, keepAs?: string): string {
  const name = keepAs !== undefined && !taken(keepAs) ? keepAs : damagedCopyName(file, now);
  for (const s of ['', ...SIDE_FILES]) if (existsSync(file + s)) renameSync(file + s, name + s);
  return name;
}
