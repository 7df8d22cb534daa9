// One runtime per data folder, with two real browser-mode server processes on one folder.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../../..');
const cli = path.join(here, '../cli.ts');

interface Started {
  child: ChildProcessWithoutNullStreams;
  /** The printed URL, or null when the process exited first. */
  url: Promise<string | null>;
  exited: Promise<{ code: number | null; stderr: string; stdout: string }>;
}

const children: ChildProcessWithoutNullStreams[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function serve(dataDir: string, staticDir: string): Started {
  const env = { ...process.env };
  delete env.THREADLINE_DATA_DIR;
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--data-dir', dataDir, '--static-dir', staticDir], {
    cwd: repoRoot,
    env,
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  let onUrl: (u: string | null) => void = () => {};
  const url = new Promise<string | null>((r) => (onUrl = r));
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
    const m = /running at (\S+)/.exec(stdout);
    if (m) onUrl(m[1]!);
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; stderr: string; stdout: string }>((r) =>
    child.on('exit', (code) => {
      onUrl(null);
      r({ code, stderr, stdout });
    }),
  );
  return { child, url, exited };
}

function tempDirs(): { dataDir: string; staticDir: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'tl-lock-'));
  dirs.push(root);
  const staticDir = path.join(root, 'web');
  mkdirSync(staticDir);
  writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
  return { dataDir: path.join(root, 'data'), staticDir };
}

async function rpc(url: string, route: string): Promise<number> {
  const u = new URL(url);
  const res = await fetch(`${u.origin}/api/rpc/${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${u.searchParams.get('token')}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return res.status;
}

describe('one runtime per data folder', () => {
  it('refuses a second server on the same folder with one sentence, opening nothing', async () => {
    const { dataDir, staticDir } = tempDirs();
    const first = serve(dataDir, staticDir);
    const url = await first.url;
    expect(url).not.toBeNull();
    const lock = JSON.parse(readFileSync(path.join(dataDir, 'threadline.lock'), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(first.child.pid);
    const db = path.join(dataDir, 'threadline.sqlite');
    const before = statSync(db).mtimeMs;

    const second = serve(dataDir, staticDir);
    const out = await second.exited;
    expect(out.code).not.toBe(0);
    expect(out.stdout).not.toContain('running at');
    const lines = out.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Threadline is already running with the data folder ${dataDir} (process ${lock.pid})`);
    // Nothing of the folder was opened or changed by the refused start; the first still serves.
    expect(statSync(db).mtimeMs).toBe(before);
    expect(readFileSync(path.join(dataDir, 'threadline.lock'), 'utf8')).toContain(`"pid":${lock.pid}`);
    expect(await rpc(url!, 'sessions.list')).toBe(200);
  });

  it('takes over the lock of a server killed with kill -9 (a stale lock), and frees it on a clean stop', async () => {
    const { dataDir, staticDir } = tempDirs();
    const first = serve(dataDir, staticDir);
    expect(await first.url).not.toBeNull();
    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(path.join(dataDir, 'threadline.lock'))).toBe(true);

    const second = serve(dataDir, staticDir);
    const url = await second.url;
    expect(url).not.toBeNull();
    expect(await rpc(url!, 'sessions.list')).toBe(200);
    const lock = JSON.parse(readFileSync(path.join(dataDir, 'threadline.lock'), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(second.child.pid);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(existsSync(path.join(dataDir, 'threadline.lock'))).toBe(false);
  });
});
