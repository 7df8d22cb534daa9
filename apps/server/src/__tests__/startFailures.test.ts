// Issue 25 §6: start-up failures of the data folder are one sentence, with real processes: a
// read-only folder (a read-only bind mount made by bwrap), a full disk (a small tmpfs made by bwrap),
// a lock held by a zombie, and a damaged
// database (reported untouched; `--fresh-database` keeps it under a dated name and opens a new one).
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataLock, isZombie, LOCK_FILE, openStore } from '@threadline/agent';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../../..');
const cli = path.join(here, '../cli.ts');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(path.join(tmpdir(), 'tl-start-'));
  dirs.push(d);
  return d;
};
const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;

/** `threadline serve` in bubblewrap with the given extra mounts (the rest of / as is), its data in `dataDir`. */
function serveInBwrap(mounts: string[], dataDir: string): SpawnSyncReturns<string> {
  const staticDir = path.join(tempDir(), 'web');
  mkdirSync(staticDir);
  writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html>');
  const env = { ...process.env };
  delete env.THREADLINE_DATA_DIR;
  return spawnSync(
    'bwrap',
    [
      '--bind',
      '/',
      '/',
      ...mounts,
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--',
      process.execPath,
      '--import',
      'tsx',
    ].concat([cli, '--data-dir', dataDir, '--static-dir', staticDir]),
    { cwd: repoRoot, env, encoding: 'utf8', timeout: 120_000 },
  );
}

describe('start-up failures in one sentence', () => {
  it.skipIf(!hasBwrap)(
    'a read-only data folder: one line, exit 2',
    () => {
      const root = tempDir();
      const ro = path.join(root, 'ro');
      mkdirSync(ro);
      const dataDir = path.join(ro, 'data');
      const r = serveInBwrap(['--ro-bind', ro, ro], dataDir);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `threadline serve: The data folder ${dataDir} is on a read-only disk; start with a writable one (--data-dir DIR or THREADLINE_DATA_DIR).\n`,
      );
      expect(r.status).toBe(2);
    },
    150_000,
  );

  it.skipIf(!hasBwrap)(
    'a full disk: one line, exit 2',
    () => {
      // The data folder on a 40 KB tmpfs (bwrap's own mount): the database cannot grow its files.
      const full = tempDir();
      const dataDir = path.join(full, 'data');
      const r = serveInBwrap(['--size', '40960', '--tmpfs', full], dataDir);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `threadline serve: The disk of the data folder ${dataDir} is full; free some space and start Threadline again.\n`,
      );
      expect(r.status).toBe(2);
    },
    150_000,
  );

  it('a lock held by a zombie (exited, not reaped) is taken over', async () => {
    // sh starts a background sleep, then becomes a sleep itself, which never reaps a child. Once
    // it has (its /proc comm says so), the background one is killed: a zombie until its parent ends.
    const parent = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = await new Promise<number>((ok) =>
        parent.stdout.once('data', (c: Buffer) => ok(Number(c.toString().trim()))),
      );
      await expect
        .poll(() => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim(), { timeout: 30_000 })
        .toBe('sleep');
      process.kill(zombie, 'SIGKILL');
      await expect.poll(() => isZombie(zombie), { timeout: 30_000 }).toBe(true);
      const dataDir = tempDir();
      writeFileSync(path.join(dataDir, LOCK_FILE), JSON.stringify({ pid: zombie, host: hostname(), startedAt: 1 }));
      const lock = acquireDataLock(dataDir);
      expect(JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
      lock.release();
      expect(isZombie(process.pid)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  describe('a damaged database', () => {
    const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
    /** A real database of the browser mode, then garbage written over some of its pages. */
    const damagedDataDir = (): { dataDir: string; file: string; staticDir: string } => {
      const dataDir = tempDir();
      const file = path.join(dataDir, 'threadline.sqlite');
      const store = openStore({ file, env: {}, allowPlaintextKeys: true });
      const s = store.sessions.create('before the damage');
      for (let i = 0; i < 10; i++)
        store.messages.append(
          s.id,
          Array.from({ length: 10 }, (_, j) => ({ role: 'user' as const, content: `message ${i}/${j} `.repeat(50) })),
        );
      store.close();
      const fd = openSync(file, 'r+');
      writeSync(fd, Buffer.from('garbage '.repeat(1536)), 0, 4096 * 3, 4096 * 2);
      closeSync(fd);
      const staticDir = path.join(tempDir(), 'web');
      mkdirSync(staticDir);
      writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html>');
      return { dataDir, file, staticDir };
    };
    const serveArgs = (dataDir: string, staticDir: string, ...more: string[]): string[] => [
      '--import',
      'tsx',
      cli,
      '--data-dir',
      dataDir,
      '--static-dir',
      staticDir,
      '--port',
      '0',
      ...more,
    ];
    const env = (): NodeJS.ProcessEnv => {
      const e = { ...process.env };
      delete e.THREADLINE_DATA_DIR;
      return e;
    };

    it('stops the start with one line saying how to start fresh, and changes nothing', () => {
      const { dataDir, file, staticDir } = damagedDataDir();
      const before = sha(file);
      const r = spawnSync(process.execPath, serveArgs(dataDir, staticDir), {
        cwd: repoRoot,
        env: env(),
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.stdout).toBe('');
      const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(r.stderr).toMatch(
        new RegExp(
          `^threadline serve: The database ${escaped} is damaged \\([^\\n]+\\)\\. ` +
            `Start again with --fresh-database to keep it as ${escaped}\\.corrupt-[0-9TZ-]+ and open a new one\\.\\n$`,
        ),
      );
      expect(r.status).toBe(2);
      expect(sha(file)).toBe(before);
      expect(readdirSync(dataDir).filter((f) => f.includes('.corrupt-'))).toEqual([]);
    }, 150_000);

    it('--fresh-database keeps the damaged file under the dated name, bytes intact, and serves a new database', async () => {
      const { dataDir, file, staticDir } = damagedDataDir();
      const before = sha(file);
      const child = spawn(process.execPath, serveArgs(dataDir, staticDir, '--fresh-database'), {
        cwd: repoRoot,
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        let out = '';
        let err = '';
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        const url = await new Promise<string>((ok, fail) => {
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString();
            const m = /Threadline is running at (\S+)\n/.exec(out);
            if (m) ok(m[1]!);
          });
          child.once('exit', (code) => fail(new Error(`exited ${code}: ${err}`)));
        });
        const kept = /the damaged database was kept as (\S+); a new one was opened\.\n/.exec(err)?.[1];
        expect(kept, err).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.corrupt-`));
        expect(sha(kept!)).toBe(before);
        const u = new URL(url);
        const rpc = async (route: string, body: unknown): Promise<unknown> => {
          const res = await fetch(`${u.origin}/api/rpc/${route}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${u.searchParams.get('token')}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          return res.json();
        };
        expect(await rpc('sessions.list', {})).toEqual({ ok: true, data: [] });
        const created = (await rpc('sessions.create', { title: 'after the fresh start' })) as {
          ok: boolean;
          data: { title: string };
        };
        expect(created.ok).toBe(true);
        expect(((await rpc('sessions.list', {})) as { data: { title: string }[] }).data.map((x) => x.title)).toEqual([
          'after the fresh start',
        ]);
      } finally {
        const exited = new Promise((ok) => child.once('exit', ok));
        child.kill('SIGTERM');
        await exited;
      }
    }, 150_000);
  });
});
