import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// `pnpm serve` as real processes: the CLI (tsx apps/server/src/cli.ts) and the renderer build.
const root = resolve(import.meta.dirname, '../../../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const temp = mkdtempSync(join(tmpdir(), 'tl-serve-'));
const staticDir = join(temp, 'web');
mkdirSync(staticDir);
writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Threadline</title>');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(temp, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
}

/** Spawns and resolves on exit, or as soon as stdout has the URL line (the server keeps running). */
function run(cmd: string, args: string[]): Promise<Run & { code: number | null }> {
  // As a user's shell starts it: without the test runner's NODE_ENV=test (under which the
  // renderer build would bundle React's development code).
  const { NODE_ENV: _testEnv, ...env } = process.env;
  const child = spawn(cmd, args, {
    cwd: root,
    env: { ...env, OPENAI_API_KEY: '', THREADLINE_PROVIDER_URL: '' },
  });
  children.push(child);
  const r = { child, stdout: '', stderr: '', code: null as number | null };
  return new Promise((ok) => {
    child.stdout!.on('data', (c: Buffer) => {
      r.stdout += c.toString();
      if (r.stdout.includes('\n') && r.stdout.startsWith('Threadline is running at')) ok(r);
    });
    child.stderr!.on('data', (c: Buffer) => (r.stderr += c.toString()));
    child.on('close', (code) => ok({ ...r, code }));
  });
}

const serve = (...args: string[]) => run(tsx, ['apps/server/src/cli.ts', '--static-dir', staticDir, ...args]);

describe('pnpm serve', () => {
  it('without --port: a free port, the URL line, nothing on stderr', async () => {
    const dataDir = join(temp, 'free');
    const r = await serve('--data-dir', dataDir);
    expect(r.stdout).toMatch(/^Threadline is running at http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+\n$/);
    expect(r.stderr).toBe('');
    const port = Number(/:(\d+)\//.exec(r.stdout)![1]);
    expect(port).toBeGreaterThan(0);
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(res.status).toBe(200);
    r.child.kill('SIGTERM');
    await new Promise((ok) => r.child.once('close', ok));
  });

  it('a busy --port: one sentence, exit 2, before the data folder is created', async () => {
    const holder: Server = createServer();
    await new Promise<void>((ok) => holder.listen(0, '127.0.0.1', ok));
    const { port } = holder.address() as { port: number };
    try {
      const dataDir = join(temp, 'busy');
      const r = await serve('--port', String(port), '--data-dir', dataDir);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `threadline serve: port ${port} is already in use on 127.0.0.1; choose another with --port N, or leave --port out to use a free one.\n`,
      );
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await new Promise((ok) => holder.close(ok));
    }
  });

  it('a restart on the same data folder gives the same address: the kept token and port', async () => {
    const dataDir = join(temp, 'kept');
    const stopped = async (r: Run) => {
      r.child.kill('SIGTERM');
      await new Promise((ok) => r.child.once('close', ok));
    };
    const first = await serve('--data-dir', dataDir);
    const url = first.stdout.trim().replace('Threadline is running at ', '');
    await stopped(first);
    expect(statSync(join(dataDir, 'browser.json')).mode & 0o777).toBe(0o600);
    const again = await serve('--data-dir', dataDir);
    expect(again.stdout.trim()).toBe(`Threadline is running at ${url}`);
    // The kept key opens it; a made-up one does not.
    const { origin, searchParams } = new URL(url);
    const token = searchParams.get('token')!;
    const ok = await fetch(`${origin}/api/rpc/sessions.list`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(ok.status).toBe(200);
    await stopped(again);

    // --token: that key, on the kept port.
    const mine = 'a-token-of-my-own-choosing-123';
    const given = await serve('--data-dir', dataDir, '--token', mine);
    expect(given.stdout.trim()).toBe(`Threadline is running at ${origin}/?token=${mine}`);
    await stopped(given);
  });

  it('refuses a --token that is short or not URL-safe, in one sentence', async () => {
    for (const bad of ['short', 'has spaces in it, 1234567890']) {
      const r = await serve('--data-dir', join(temp, 'bad-token'), '--token', bad);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        'threadline serve: --token must be 16 to 200 letters, digits, "-" or "_" (it is the key to an agent that runs commands).\n',
      );
    }
  });

  it('the renderer build it runs first prints no warning', async () => {
    const r = await run(join(root, 'apps/desktop/node_modules/.bin/vite'), [
      'build',
      '-c',
      join(root, 'apps/desktop/vite.web.config.ts'),
      '--outDir',
      join(temp, 'build'),
      '--logLevel',
      'warn',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
    expect(existsSync(join(temp, 'build', 'index.html'))).toBe(true);
  });
});
