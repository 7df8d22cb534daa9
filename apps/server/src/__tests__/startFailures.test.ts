// Issue 25 §6: start-up failures of the data folder are one sentence, with real processes: a
// read-only folder (a read-only bind mount made by bwrap), and a lock held by a zombie.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataLock, isZombie, LOCK_FILE } from '@threadline/agent';

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

describe('start-up failures in one sentence', () => {
  it.skipIf(!hasBwrap)(
    'a read-only data folder: one line, exit 2',
    () => {
      const root = tempDir();
      const ro = path.join(root, 'ro');
      mkdirSync(ro);
      const staticDir = path.join(root, 'web');
      mkdirSync(staticDir);
      writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html>');
      const dataDir = path.join(ro, 'data');
      const env = { ...process.env };
      delete env.THREADLINE_DATA_DIR;
      const r = spawnSync(
        'bwrap',
        ['--bind', '/', '/', '--ro-bind', ro, ro, '--dev', '/dev', '--proc', '/proc', '--'].concat([
          process.execPath,
          '--import',
          'tsx',
          cli,
          '--data-dir',
          dataDir,
          '--static-dir',
          staticDir,
        ]),
        { cwd: repoRoot, env, encoding: 'utf8', timeout: 120_000 },
      );
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `threadline serve: The data folder ${dataDir} is on a read-only disk; start with a writable one (--data-dir DIR or THREADLINE_DATA_DIR).\n`,
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
});
