import { createHash } from 'node:crypto';
import {
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../openStore';
import { StoreError } from '../types';
import { isDamagedDatabase } from '../db/damagedDatabase';
import { useTempDir } from './helpers';

const tmp = useTempDir();
const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

function expectStoreError(fn: () => unknown, code: StoreError['code']): StoreError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    expect((e as StoreError).code).toBe(code);
    return e as StoreError;
  }
  throw new Error(`expected StoreError ${code}`);
}

/** A closed database big enough to span many pages. */
function filledDatabase(): string {
  const store = tmp.open();
  const s = store.sessions.create('big');
  for (let i = 0; i < 20; i++)
    store.messages.append(
      s.id,
      Array.from({ length: 10 }, (_, j) => ({ role: 'user' as const, content: `message ${i}/${j} `.repeat(40) })),
    );
  store.close();
  return store.file;
}

describe('opening damaged or foreign files', () => {
  it('reports a non-SQLite file, copies it aside and leaves it untouched', () => {
    const file = join(tmp.dir(), 'threadline.db');
    writeFileSync(file, 'this is my shopping list, not a database\n'.repeat(100));
    const before = sha(file);
    const err = expectStoreError(
      () => openStore({ file, env: {}, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) }),
      'not_sqlite',
    );
    expect(err.message).toContain('not a SQLite database');
    expect(err.backupFile).toBe(`${file}.corrupt-2026-01-02T03-04-05-000Z`);
    expect(sha(err.backupFile!)).toBe(before);
    expect(sha(file)).toBe(before);
    expect(existsSync(file + '-wal')).toBe(false);
  });

  it('reports a database with damaged pages as corrupt and keeps a copy', () => {
    const file = filledDatabase();
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(8 * 4096);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096 * 3, 0xa5), 0, 4096 * 3, 4096 * 2); // pages 3-5 become noise
    closeSync(fd);
    const before = sha(file);
    const err = expectStoreError(() => openStore({ file, env: {} }), 'corrupt');
    expect(err.message).toMatch(/damaged/);
    expect(sha(file)).toBe(before);
    expect(sha(err.backupFile!)).toBe(before);
  });

  it('reports a truncated database as corrupt', () => {
    const file = filledDatabase();
    truncateSync(file, Math.floor(statSync(file).size / 2) + 100);
    const before = sha(file);
    expectStoreError(() => openStore({ file, env: {} }), 'corrupt');
    expect(sha(file)).toBe(before);
  });

  it('reports damage found after opening as corrupt', () => {
    // Bigger than SQLite's page cache, so the damaged pages are read from disk again.
    const store = tmp.open();
    const s = store.sessions.create('big');
    for (let i = 0; i < 12; i++)
      store.messages.append(
        s.id,
        Array.from({ length: 100 }, () => ({ role: 'user' as const, content: 'x'.repeat(10_000) })),
      );
    store.close();
    const again = tmp.open();
    const fd = openSync(again.file, 'r+');
    writeSync(fd, Buffer.alloc(4096 * 40, 0x5a), 0, 4096 * 40, 4096 * 2);
    closeSync(fd);
    expectStoreError(() => again.messages.list(s.id), 'corrupt');
  });

  it("with onCorrupt: 'recreate', moves the damaged file aside and starts empty", () => {
    const file = join(tmp.dir(), 'threadline.db');
    writeFileSync(file, Buffer.alloc(5000, 7));
    const before = sha(file);
    const store = tmp.open({ file, onCorrupt: 'recreate' });
    expect(store.recovered?.reason).toBe('not_sqlite');
    expect(sha(store.recovered!.backupFile)).toBe(before);
    expect(store.sessions.list()).toEqual([]);
    store.sessions.create('fresh');
    expect(store.sessions.list()).toHaveLength(1);
  });

  it('never overwrites an earlier backup', () => {
    const file = join(tmp.dir(), 'threadline.db');
    writeFileSync(file, 'garbage'.repeat(50));
    const now = () => 1_000;
    const a = expectStoreError(() => openStore({ file, env: {}, now }), 'not_sqlite').backupFile;
    const b = expectStoreError(() => openStore({ file, env: {}, now }), 'not_sqlite').backupFile;
    expect(a).not.toBe(b);
    expect(readdirSync(tmp.dir()).filter((f) => f.includes('.corrupt-'))).toHaveLength(2);
  });

  it('treats an empty file as a new database', () => {
    const file = join(tmp.dir(), 'threadline.db');
    writeFileSync(file, '');
    const store = tmp.open({ file });
    expect(store.recovered).toBeNull();
    expect(store.sessions.create('x').title).toBe('x');
  });

  it('creates the data folder when missing', () => {
    const file = join(tmp.dir(), 'a', 'b', 'threadline.db');
    const store = tmp.open({ file });
    expect(existsSync(file)).toBe(true);
    expect(store.file).toBe(file);
  });
});

describe('a damaged database at start-up: report, then start fresh keeping the damaged copy (issue 25)', () => {
  /** A real database left with a WAL (the connection is not closed cleanly), then damaged. */
  function damagedWithWal(): { file: string; sums: Record<string, string> } {
    const file = filledDatabase();
    const again = openStore({ file, env: {} });
    again.sessions.create('only in the WAL');
    // Not closed: the WAL and shared-memory files stay beside the database, as after a crash.
    expect(existsSync(file + '-wal')).toBe(true);
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('garbage '.repeat(1536)), 0, 4096 * 3, 4096 * 2);
    closeSync(fd);
    const sums: Record<string, string> = {};
    for (const s of ['', '-wal', '-shm']) if (existsSync(file + s)) sums[s] = sha(file + s);
    return { file, sums };
  }

  it("'report' names the damage and where a fresh start would keep it, and changes nothing", () => {
    const { file, sums } = damagedWithWal();
    const listing = readdirSync(tmp.dir()).sort();
    const now = () => Date.UTC(2026, 4, 6, 7, 8, 9);
    const err = expectStoreError(() => openStore({ file, env: {}, onCorrupt: 'report', now }), 'corrupt');
    expect(isDamagedDatabase(err)).toBe(true);
    expect(err.message).toMatch(/^The database .* is damaged/);
    expect(err.keepAs).toBe(`${file}.corrupt-2026-05-06T07-08-09-000Z`);
    expect(err.backupFile).toBeUndefined();
    expect(readdirSync(tmp.dir()).sort()).toEqual(listing);
    for (const [s, sum] of Object.entries(sums)) expect(sha(file + s)).toBe(sum);
  });

  it("'recreate' renames the database and its -wal/-shm to the offered name, bytes intact, and the new one works", () => {
    const { file, sums } = damagedWithWal();
    const offer = expectStoreError(() => openStore({ file, env: {}, onCorrupt: 'report' }), 'corrupt').keepAs!;
    const store = tmp.open({ file, onCorrupt: 'recreate', keepDamagedAs: offer });
    expect(store.recovered).toEqual({ reason: 'corrupt', backupFile: offer });
    for (const [s, sum] of Object.entries(sums)) expect(sha(offer + s)).toBe(sum);
    expect(store.sessions.list()).toEqual([]);
    const s = store.sessions.create('after the fresh start');
    store.messages.append(s.id, [{ role: 'user', content: 'hello again' }]);
    store.close();
    const reopened = tmp.open({ file, onCorrupt: 'report' });
    expect(reopened.sessions.list().map((x) => x.title)).toEqual(['after the fresh start']);
    expect(reopened.recovered).toBeNull();
  });

  it('a file that is not SQLite at all is offered alike; a taken name is never overwritten', () => {
    const file = join(tmp.dir(), 'threadline.db');
    writeFileSync(file, 'garbage, not a database\n'.repeat(300));
    const before = sha(file);
    const now = () => 5_000;
    const err = expectStoreError(() => openStore({ file, env: {}, onCorrupt: 'report', now }), 'not_sqlite');
    expect(isDamagedDatabase(err)).toBe(true);
    // Something appeared under the offered name meanwhile: it stays, the file goes to a free name.
    writeFileSync(err.keepAs!, 'someone else');
    const store = tmp.open({ file, onCorrupt: 'recreate', keepDamagedAs: err.keepAs!, now });
    expect(readFileSync(err.keepAs!, 'utf8')).toBe('someone else');
    expect(store.recovered!.backupFile).toBe(`${err.keepAs!}-1`);
    expect(sha(store.recovered!.backupFile)).toBe(before);
    expect(store.sessions.create('fresh').title).toBe('fresh');
  });

  it('a healthy database is opened as it is, whatever onCorrupt says', () => {
    const file = filledDatabase();
    const before = readdirSync(tmp.dir());
    const store = tmp.open({ file, onCorrupt: 'recreate' });
    expect(store.recovered).toBeNull();
    expect(store.sessions.list()).toHaveLength(1);
    expect(readdirSync(tmp.dir()).filter((f) => f.includes('.corrupt-'))).toEqual([]);
    expect(before).toContain('threadline.db');
  });
});

describe('file access', () => {
  it.skipIf(process.platform === 'win32')('creates the database readable by its owner only', () => {
    const store = tmp.open();
    store.sessions.create('x');
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(store.file + '-wal').mode & 0o777).toBe(0o600);
  });

  it('answers every call after close() with a clear error', () => {
    const store = tmp.open();
    store.close();
    expect(() => store.sessions.list()).toThrow(StoreError);
    expect(() => store.messages.list('x')).toThrow(/is closed/);
    store.close(); // idempotent
  });
});
