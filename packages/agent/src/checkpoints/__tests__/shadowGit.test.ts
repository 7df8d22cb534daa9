// The shadow repository's snapshot with a real git: incremental (only what changed is looked at,
// an unchanged folder gives the same commit), the caps, .gitignore changes, and links.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SNAPSHOT_CAPS, ShadowRepo } from '../shadowGit';

let root: string;
let folder: string;
let repo: ShadowRepo;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tl-shadow-'));
  folder = path.join(root, 'work');
  mkdirSync(path.join(folder, 'src'), { recursive: true });
  writeFileSync(path.join(folder, 'src', 'a.ts'), 'a\n');
  writeFileSync(path.join(folder, 'src', 'b.ts'), 'b\n');
  repo = new ShadowRepo('git', path.join(root, 'data'), folder);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The paths a commit holds. */
function tree(commit: string): string[] {
  return execFileSync('git', ['--git-dir', repo.gitDir, 'ls-tree', '-r', '--name-only', commit], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean);
}

const parents = (commit: string): string =>
  execFileSync('git', ['--git-dir', repo.gitDir, 'log', '--format=%P', '-1', commit], { encoding: 'utf8' }).trim();

describe('a snapshot of the folder', () => {
  it('gives the last commit again when nothing changed, a child of it when something did', async () => {
    const first = await repo.snapshot('one', DEFAULT_SNAPSHOT_CAPS);
    expect(tree(first.commit)).toEqual(['src/a.ts', 'src/b.ts']);
    expect((await repo.snapshot('two', DEFAULT_SNAPSHOT_CAPS)).commit).toBe(first.commit);
    // Another process (the next start of the app) knows nothing in memory: still the same commit.
    const again = new ShadowRepo('git', path.join(root, 'data'), folder);
    expect((await again.snapshot('three', DEFAULT_SNAPSHOT_CAPS)).commit).toBe(first.commit);
    writeFileSync(path.join(folder, 'src', 'a.ts'), 'changed\n');
    rmSync(path.join(folder, 'src', 'b.ts'));
    writeFileSync(path.join(folder, 'c.ts'), 'c\n');
    const next = await again.snapshot('four', DEFAULT_SNAPSHOT_CAPS);
    expect(next.commit).not.toBe(first.commit);
    expect(parents(next.commit)).toBe(first.commit);
    expect(tree(next.commit)).toEqual(['c.ts', 'src/a.ts']);
  });

  it('drops what a changed .gitignore now ignores, and takes it again when it no longer does', async () => {
    writeFileSync(path.join(folder, 'build.log'), 'log\n');
    expect(tree((await repo.snapshot('one', DEFAULT_SNAPSHOT_CAPS)).commit)).toContain('build.log');
    writeFileSync(path.join(folder, '.gitignore'), '*.log\n');
    expect(tree((await repo.snapshot('two', DEFAULT_SNAPSHOT_CAPS)).commit)).toEqual([
      '.gitignore',
      'src/a.ts',
      'src/b.ts',
    ]);
    writeFileSync(path.join(folder, '.gitignore'), '\n');
    expect(tree((await repo.snapshot('three', DEFAULT_SNAPSHOT_CAPS)).commit)).toContain('build.log');
  });

  it('keeps to the caps: a file over the size cap is said, files past the count cap are counted', async () => {
    const caps = { maxFileBytes: 10, maxTotalBytes: 1000, maxFiles: 2 };
    writeFileSync(path.join(folder, 'big.bin'), Buffer.alloc(64, 1));
    writeFileSync(path.join(folder, 'z.ts'), 'z\n');
    const snap = await repo.snapshot('one', caps);
    expect(snap.skipped).toMatchObject({ tooLarge: ['big.bin'], overBudget: 1 });
    expect(tree(snap.commit)).toEqual(['src/a.ts', 'src/b.ts']);
    // A file of the snapshot that grows over the cap leaves it.
    writeFileSync(path.join(folder, 'src', 'a.ts'), 'x'.repeat(64));
    const grown = await repo.snapshot('two', caps);
    expect(grown.skipped.tooLarge).toEqual(['big.bin', 'src/a.ts']);
    expect(tree(grown.commit)).toEqual(['src/b.ts', 'z.ts']);
  });

  it('records a link as a link and never looks through a folder that became one', async () => {
    const outside = path.join(root, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'a.ts'), 'not ours\n');
    await repo.snapshot('one', DEFAULT_SNAPSHOT_CAPS);
    rmSync(path.join(folder, 'src'), { recursive: true });
    symlinkSync(outside, path.join(folder, 'src'));
    const linked = await repo.snapshot('two', DEFAULT_SNAPSHOT_CAPS);
    expect(tree(linked.commit)).toEqual(['src']);
    const mode = execFileSync('git', ['--git-dir', repo.gitDir, 'ls-tree', linked.commit, 'src'], { encoding: 'utf8' });
    expect(mode.startsWith('120000 blob')).toBe(true);
  });
});
