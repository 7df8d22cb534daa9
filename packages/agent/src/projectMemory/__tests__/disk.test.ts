// What project memory asks of the disk, on real files: a planted link out of the project, a FIFO,
// a link loop, a repository's root and a folder reached through a symlink; then the same as an
// unprivileged user (CI runs as root, which reads everything), where a link into a place only
// root may read is answered too, never followed, never waited on.
import { spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { testUser } from '@threadline/fake-llm/testUser';
import { pathState, projectRootOf, sameAsVerified } from '../disk';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../../../..');
const made: string[] = [];
afterEach(() => {
  for (const p of made.splice(0)) rmSync(p, { recursive: true, force: true });
});

/** A project with a file, a folder, a link out, a FIFO and a link loop. */
function plant(dir: string, secret: string): void {
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  writeFileSync(path.join(dir, 'src', 'app.ts'), 'x');
  symlinkSync('/etc/hostname', path.join(dir, 'out'));
  symlinkSync(secret, path.join(dir, 'secret'));
  execFileSync('mkfifo', [path.join(dir, 'pipe')]);
  symlinkSync(path.join(dir, 'loop'), path.join(dir, 'loop'));
}
const NAMES = ['src/app.ts', 'src', 'out', 'secret', 'pipe', 'loop', 'nope.ts', '../escape'];

describe('project memory and the disk', () => {
  it("answers every path's state without following it out or opening it", async () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'tl-disk-')));
    made.push(dir);
    plant(dir, '/etc/hostname');
    const states = Object.fromEntries(
      await Promise.all(NAMES.map(async (n) => [n, (await pathState(dir, n, process.platform)).state] as const)),
    );
    expect(states).toEqual({
      'src/app.ts': 'there',
      src: 'there',
      out: 'outside',
      secret: 'outside',
      pipe: 'missing',
      loop: 'missing',
      'nope.ts': 'missing',
      '../escape': 'missing',
    });
    const file = await pathState(dir, 'src/app.ts', process.platform);
    expect(file).toMatchObject({ state: 'there', fingerprint: { type: 'file', size: 1 } });
    if (file.state !== 'there') throw new Error('unreachable');
    expect(sameAsVerified(file.fingerprint, { ...file.fingerprint, size: 2 })).toBe(false);
    expect(sameAsVerified({ type: 'dir', size: 0, mtimeMs: 0 }, { type: 'dir', size: 0, mtimeMs: 0 })).toBe(true);
  });

  it("a folder's project is its repository's root, by realpath, through a symlink too", async () => {
    const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'tl-root-')));
    made.push(base);
    const repo = path.join(base, 'repo');
    mkdirSync(path.join(repo, 'packages', 'app'), { recursive: true });
    execFileSync('git', ['init', '-q', repo]);
    symlinkSync(path.join(repo, 'packages', 'app'), path.join(base, 'link'));
    expect(await projectRootOf(path.join(repo, 'packages', 'app'), base)).toBe(repo);
    expect(await projectRootOf(path.join(base, 'link'), base)).toBe(repo);
    const plain = path.join(base, 'plain');
    mkdirSync(plain);
    expect(await projectRootOf(plain, '/nonexistent-home')).toBe(plain);
    expect(await projectRootOf(path.join(base, 'not-yet'), base)).toBeNull();
  });

  it('as an unprivileged user: a link into a place only root may read is no path of the project, and nothing hangs', () => {
    const user = testUser();
    const dir = user.tempDir('tl-disk-user-');
    made.push(dir);
    // A place the user may not look into (as root: a 0700 folder of root's).
    const closed = mkdtempSync(path.join(tmpdir(), 'tl-closed-'));
    made.push(closed);
    writeFileSync(path.join(closed, 'key'), 'secret', { mode: 0o600 });
    chmodSync(closed, 0o700);
    plant(dir, path.join(closed, 'key'));
    for (const p of ['src', 'src/app.ts', 'out', 'secret', 'pipe', 'loop']) user.own(path.join(dir, p));
    user.reach(repoRoot, process.execPath, path.join(here, 'fixtures', 'diskProbe.ts'));
    const a = user.argv(process.execPath, [
      '--import',
      'tsx',
      path.join(here, 'fixtures', 'diskProbe.ts'),
      dir,
      dir,
      ...NAMES,
    ]);
    const r = spawnSync(a.command, a.args, {
      cwd: repoRoot,
      encoding: 'utf8',
      env: user.env(process.env, dir),
      timeout: 60_000,
    });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { uid: number; root: string; states: Record<string, string> };
    expect(out.uid).toBe(user.uid);
    expect(out.root).toBe(dir);
    expect(out.states).toEqual({
      'src/app.ts': 'there',
      src: 'there',
      out: 'outside',
      // Root's own file: the user cannot resolve it, so it is not there for the project.
      secret: user.switched ? 'missing' : 'outside',
      pipe: 'missing',
      loop: 'missing',
      'nope.ts': 'missing',
      '../escape': 'missing',
    });
  });
});
