// Opening the file safely (SPEC §9): a newer schema is refused without touching the file, a damaged
// or foreign file is reported (copied aside with 'throw'), or renamed aside for a fresh database with
// 'recreate' (damagedDatabase.ts); never overwritten.
import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreError } from '../types';
import { copyDamagedAside, damagedCopyName, moveDamagedAside, SIDE_FILES } from './damagedDatabase';
import {
  migrate,
  ensureSearchIndex,
  readUserVersion,
  reclaimSpace,
  COMPACT_STORE_VERSION,
  SCHEMA_VERSION,
} from './migrations';

const SQLITE_MAGIC = 'SQLite format 3\0';
/**
 * quick_check reads every page (about 1 ms of CPU per MB here); above this size opening would get
 * slow, so only the O(1) size check runs and later damage surfaces as StoreError('corrupt').
 */
const QUICK_CHECK_MAX_BYTES = 64 * 1024 * 1024;

export interface OpenedDatabase {
  db: Database.Database;
  recovered: { reason: 'corrupt' | 'not_sqlite'; backupFile: string } | null;
}

export interface OpenDatabaseOptions {
  file: string;
  onCorrupt: 'throw' | 'report' | 'recreate';
  now: () => number;
  /** With 'recreate': the name to keep the damaged file as (see OpenStoreOptions). */
  keepDamagedAs?: string;
}

export function openDatabase(opts: OpenDatabaseOptions): OpenedDatabase {
  const { file } = opts;
  // Private to the user: the file holds conversations and maybe API keys (SQLite gives the
  // -wal/-shm files the main file's mode).
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  let recovered: OpenedDatabase['recovered'] = null;

  const damage = inspectExisting(file);
  if (damage) {
    if (opts.onCorrupt === 'report')
      throw new StoreError(damage.code, damage.message, undefined, damagedCopyName(file, opts.now()));
    if (opts.onCorrupt === 'throw') {
      const backupFile = copyDamagedAside(file, opts.now());
      throw new StoreError(
        damage.code,
        `${damage.message} It was not changed; a copy is at ${backupFile}.`,
        backupFile,
      );
    }
    recovered = { reason: damage.code, backupFile: moveDamagedAside(file, opts.now(), opts.keepDamagedAs) };
  }

  const isNew = !existsSync(file) || statSync(file).size === 0;
  const db = new Database(file);
  if (isNew && process.platform !== 'win32') chmodSync(file, 0o600);
  try {
    refuseNewer(file, readUserVersion(db)); // another process may have upgraded it since the inspection
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const applied = migrate(db);
    if (!isNew && applied.includes(COMPACT_STORE_VERSION)) reclaimSpace(db);
    ensureSearchIndex(db);
  } catch (err) {
    db.close();
    if (err instanceof StoreError) throw err;
    if (isCorruptionError(err)) {
      if (opts.onCorrupt === 'report')
        throw new StoreError(
          'corrupt',
          `The database ${file} is damaged (${oneLine((err as Error).message)}).`,
          undefined,
          damagedCopyName(file, opts.now()),
        );
      const backupFile = copyDamagedAside(file, opts.now());
      throw new StoreError(
        'corrupt',
        `The database ${file} is damaged (${(err as Error).message}). A copy is at ${backupFile}.`,
        backupFile,
      );
    }
    throw err;
  }
  return { db, recovered };
}

interface Damage {
  code: 'corrupt' | 'not_sqlite';
  message: string;
}

/**
 * Looks at an existing file without writing to it: the header (magic, user_version), then a
 * read-only connection for the version as SQLite sees it (a hot WAL may hold a newer one) and a
 * quick_check. Throws newer_schema; returns what is wrong with a damaged file.
 */
function inspectExisting(file: string): Damage | null {
  if (!existsSync(file)) return null;
  const size = statSync(file).size;
  if (size === 0) return null; // an empty file is a fresh database to SQLite
  const header = readHeader(file);
  if (header.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC) {
    return {
      code: 'not_sqlite',
      message: `The file ${file} is not a SQLite database (${size} bytes, unknown header).`,
    };
  }
  if (header.length >= 64) refuseNewer(file, header.readUInt32BE(60));
  if (header.length >= 32) {
    // A file shorter than the page count its header declares lost its tail.
    const pageSize = header.readUInt16BE(16) === 1 ? 65536 : header.readUInt16BE(16);
    const declaredPages = header.readUInt32BE(28);
    if (declaredPages > 0 && size < declaredPages * pageSize && !existsSync(file + '-wal')) {
      return {
        code: 'corrupt',
        message: `The database ${file} is damaged (truncated: ${size} bytes, its header declares ${declaredPages * pageSize}).`,
      };
    }
  }
  // A read-only connection may create empty -wal/-shm files it cannot remove; remove those we caused
  // whenever we are not going on to open the file for real.
  const sideBefore = SIDE_FILES.filter((s) => existsSync(file + s));
  let ro: Database.Database | null = null;
  let keepSideFiles = false;
  try {
    ro = new Database(file, { readonly: true, fileMustExist: true });
    refuseNewer(file, readUserVersion(ro));
    ro.prepare('SELECT count(*) FROM sqlite_master').get();
    if (size <= QUICK_CHECK_MAX_BYTES) {
      const result = ro.pragma('quick_check(1)', { simple: true });
      if (result !== 'ok')
        return { code: 'corrupt', message: `The database ${file} is damaged (quick_check: ${oneLine(result)}).` };
    }
    keepSideFiles = true;
    return null;
  } catch (err) {
    if (err instanceof StoreError) throw err;
    if (isCorruptionError(err))
      return { code: 'corrupt', message: `The database ${file} is damaged (${oneLine((err as Error).message)}).` };
    throw err;
  } finally {
    ro?.close();
    if (!keepSideFiles)
      for (const s of SIDE_FILES) if (!sideBefore.includes(s) && existsSync(file + s)) unlinkSync(file + s);
  }
}

function refuseNewer(file: string, version: number): void {
  if (version <= SCHEMA_VERSION) return;
  throw new StoreError(
    'newer_schema',
    `The database ${file} was written by a newer version of Threadline (schema version ${version}; this version knows up to ${SCHEMA_VERSION}). ` +
      'It was not opened or changed. Update Threadline to open it.',
  );
}

/** The first 100 bytes: the SQLite header (magic at 0, user_version big-endian at 60). */
function readHeader(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(100);
    const n = readSync(fd, buf, 0, 100, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** SQLite's detail on one line (quick_check's report spans several): the start-up sentence is one line. */
const oneLine = (detail: unknown): string => String(detail).replace(/\s+/g, ' ').trim();

export function isCorruptionError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}
