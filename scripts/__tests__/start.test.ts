import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// `pnpm start` as a real child process. ELECTRON_OVERRIDE_DIST_PATH (honoured by the electron
// package) points at a temp folder, so "no binary" holds on any machine, with or without Electron.
const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const temp = mkdtempSync(join(tmpdir(), 'tl-start-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** `tsx scripts/start.ts`, or with `viaPnpm` the README's `pnpm start` (pnpm from PATH). */
function start(env: Record<string, string | undefined>, args: string[] = [], viaPnpm = false) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, electron_config_cache: join(temp, 'cache'), ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
  const child = viaPnpm
    ? spawn('pnpm', ['start', ...args], { cwd: root, env: childEnv })
    : spawn(tsx, ['scripts/start.ts', ...args], { cwd: root, env: childEnv });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((ok) =>
    child.on('close', (code) => ok({ code, stdout, stderr })),
  );
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((ok) => srv.close(() => ok()));
  return port;
}

function expectParagraph(stderr: string): void {
  const text = stderr.trim();
  expect(text).toMatch(/^threadline: Electron's binary is not installed/);
  expect(text).toContain('node apps/desktop/node_modules/electron/install.js');
  expect(text).toContain('`pnpm serve` runs the same app in your browser');
  expect(text.split('\n')).toHaveLength(1);
  expect(text).not.toMatch(/\n\s+at |\.js:\d+/);
}

describe('pnpm start without an Electron binary', () => {
  it('with ELECTRON_SKIP_BINARY_DOWNLOAD: one paragraph, exit 1, no download', async () => {
    const r = await start({ ELECTRON_OVERRIDE_DIST_PATH: join(temp, 'none'), ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(r.code).toBe(1);
    expectParagraph(r.stderr);
    expect(r.stderr).toContain('ELECTRON_SKIP_BINARY_DOWNLOAD is set');
    expect(r.stdout).toBe('');
  });

  it('as `pnpm start`: the paragraph is the last thing printed (no ELIFECYCLE line after it)', async () => {
    const r = await start(
      {
        ELECTRON_OVERRIDE_DIST_PATH: join(temp, 'none'),
        ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
        npm_lifecycle_event: undefined,
      },
      [],
      true,
    );
    expectParagraph(r.stderr);
    expect(r.stdout).not.toMatch(/ELIFECYCLE|Command failed/);
    expect(r.stderr).not.toMatch(/ELIFECYCLE|Command failed/);
    expect(r.code).toBe(0);
  });

  it('tries Electron’s download once; when it fails: its one-line reason, the paragraph, exit 1', async () => {
    const mirror = `http://127.0.0.1:${await closedPort()}/`;
    const r = await start({
      ELECTRON_OVERRIDE_DIST_PATH: join(temp, 'none'),
      ELECTRON_SKIP_BINARY_DOWNLOAD: undefined,
      ELECTRON_MIRROR: mirror,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^Electron \d+\.\d+\.\d+ is not downloaded yet; fetching it once/);
    const [reason, ...rest] = r.stderr.trim().split('\n');
    expect(reason).toMatch(/Error/);
    expectParagraph(rest.join('\n'));
    expect(r.stderr).toContain(`the download from ${mirror} failed`);
  });
});

describe('pnpm start --check', () => {
  it('finds a binary where the electron package would (ELECTRON_OVERRIDE_DIST_PATH)', async () => {
    const dist = mkdtempSync(join(temp, 'dist-'));
    writeFileSync(join(dist, 'electron'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dist, 'electron'), 0o755);
    const r = await start({ ELECTRON_OVERRIDE_DIST_PATH: dist, DISPLAY: ':99' }, ['--check']);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(`electron: ${join(dist, 'electron')}`);
    expect(r.code).toBe(0);
  });
});

describe('pnpm start without a display (Linux)', () => {
  it.runIf(process.platform === 'linux')('says so in one paragraph and names pnpm serve', async () => {
    const dist = mkdtempSync(join(temp, 'dist-'));
    writeFileSync(join(dist, 'electron'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dist, 'electron'), 0o755);
    const r = await start({ ELECTRON_OVERRIDE_DIST_PATH: dist, DISPLAY: undefined, WAYLAND_DISPLAY: undefined }, [
      '--check',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const text = r.stderr.trim();
    expect(text.split('\n')).toHaveLength(1);
    expect(text).toMatch(/^threadline: there is no display here .*`pnpm serve`/);
  });
});
