import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { testUser } from '@threadline/fake-llm/testUser';

const root = process.getuid?.() === 0;
const made: string[] = [];
afterAll(() => {
  for (const p of made) rmSync(p, { recursive: true, force: true });
});

function runAs(user: ReturnType<typeof testUser>, command: string, args: string[], env = process.env) {
  const a = user.argv(command, args);
  return spawnSync(a.command, a.args, { encoding: 'utf8', env });
}

describe('testUser', () => {
  it('runs a child as a user that is not root', () => {
    const user = testUser();
    expect(user.uid).not.toBe(0);
    expect(user.switched).toBe(root);
    const r = runAs(user, 'id', ['-u']);
    expect(r.stderr).toBe('');
    expect(Number(r.stdout.trim())).toBe(user.uid);
    const env = user.env({ PATH: process.env.PATH }, '/fake/home');
    expect(env).toMatchObject({ HOME: '/fake/home', USER: user.name, LOGNAME: user.name });
  });

  it('is the same user for every call in a process', () => {
    expect(testUser()).toBe(testUser());
  });

  it.skipIf(!root)('cannot read what only root may read (the boundary a test relies on is real)', () => {
    const user = testUser();
    const dir = mkdtempSync(path.join(tmpdir(), 'tu-secret-'));
    made.push(dir);
    const secret = path.join(dir, 'secret.txt');
    writeFileSync(secret, 'root only', { mode: 0o600 });
    chmodSync(dir, 0o755);
    const r = runAs(user, 'cat', [secret]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/permission denied/i);
  });

  it.skipIf(!root)('makes a path under a folder closed to others reachable (a clone under /root)', () => {
    const user = testUser();
    const closed = mkdtempSync(path.join(tmpdir(), 'tu-closed-'));
    made.push(closed);
    chmodSync(closed, 0o700);
    const repo = path.join(closed, 'clone', 'repo');
    mkdirSync(repo, { recursive: true, mode: 0o700 });
    const file = path.join(repo, 'hello.txt');
    writeFileSync(file, 'hello', { mode: 0o600 });
    expect(runAs(user, 'cat', [file]).status).not.toBe(0);
    user.reach(file);
    const r = runAs(user, 'cat', [file]);
    expect(r.stdout).toBe('hello');
    // Only the search bit was added above it: the closed folder still cannot be listed.
    expect(runAs(user, 'ls', [closed]).status).not.toBe(0);
  });

  it('runs this Node binary as the user once it is reachable', () => {
    const user = testUser();
    user.reach(process.execPath);
    const r = runAs(user, process.execPath, ['-e', 'process.stdout.write(String(process.getuid()))']);
    expect(r.stdout).toBe(String(user.uid));
  });

  it('gives a temp folder the user can write', () => {
    const user = testUser();
    const dir = user.tempDir();
    made.push(dir);
    const file = path.join(dir, 'w.txt');
    const r = runAs(user, 'sh', ['-c', `echo written > '${file}' && stat -c %u '${file}'`]);
    expect(r.stdout.trim()).toBe(String(user.uid));
    const sub = path.join(dir, 'made-by-root');
    mkdirSync(sub);
    user.own(dir);
    expect(runAs(user, 'touch', [path.join(sub, 'x')]).status).toBe(0);
  });

  it.skipIf(!root)('creates the user once when several processes ask at the same time', async () => {
    const name = `tlrace${process.pid % 100000}${Math.floor(Math.random() * 1000)}`;
    const module = fileURLToPath(new URL('../testUser.ts', import.meta.url));
    const script = `import(${JSON.stringify(module)}).then((m) => process.stdout.write(String(m.testUser({ name: ${JSON.stringify(name)} }).uid)))`;
    try {
      const uids = await Promise.all(
        [1, 2, 3, 4].map(
          () =>
            new Promise<string>((resolve, reject) => {
              const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings', '-e', script]);
              let out = '';
              let err = '';
              child.stdout.on('data', (d: Buffer) => (out += d.toString()));
              child.stderr.on('data', (d: Buffer) => (err += d.toString()));
              child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(err))));
            }),
        ),
      );
      expect(new Set(uids).size).toBe(1);
      expect(Number(uids[0])).toBeGreaterThan(0);
      const entries = spawnSync('getent', ['passwd', name], { encoding: 'utf8' }).stdout.trim().split('\n');
      expect(entries).toHaveLength(1);
    } finally {
      spawnSync('userdel', ['--remove', name], { encoding: 'utf8' });
    }
  });
});
