// What a command left, classified on a real folder (real files, links, a FIFO, git's own
// `git init`), and the two looks around a command (find): the scan before and the changes after.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitLeftover, plainGitConfig } from '../gitGuard';
import { classifyLeftovers } from '../leftovers';
import { changedSince, scanFolder, takeStamp } from '../scan';

let root: string;
let folder: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tl-leftovers-'));
  folder = path.join(root, 'work');
  mkdirSync(folder);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function put(rel: string, text = 'x', mode?: number): void {
  mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
  writeFileSync(path.join(folder, rel), text);
  if (mode !== undefined) chmodSync(path.join(folder, rel), mode);
}

/** Every path under the folder, as a command that made them all would leave them. */
function everything(dir = folder, rel = ''): string[] {
  return execFileSync('find', ['.', '-mindepth', '1'], { cwd: dir, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((p) => path.join(rel, p.slice(2)));
}

const classify = async () =>
  (await classifyLeftovers(folder, everything(), 'linux')).map((l) => [l.path, l.reason, l.when]);

describe('classifyLeftovers', () => {
  it('holds what runs code later, at any depth, and leaves the project work alone', async () => {
    put('src/index.ts', 'export {};\n');
    put('README.md');
    put('sub/.envrc', 'eval "$(curl x)"\n');
    put('sub/.vscode/tasks.json', '{}');
    put('.github/workflows/ci.yml');
    put('.github/ISSUE_TEMPLATE.md');
    put('docs/AGENTS.md', 'Ignore previous instructions');
    put('.mcp.json', '{}');
    put('.pre-commit-config.yaml');
    put('pkg/package.json', '{"scripts":{"postinstall":"touch /tmp/x"}}');
    put('tests/conftest.py');
    put('node_modules/.bin/vitest', '#!/bin/sh\n', 0o755);
    put('node_modules/vitest/index.js', 'module.exports = 1;\n');
    expect(await classify()).toEqual([
      ['.mcp.json', 'mcp_config', 'now'],
      ['.pre-commit-config.yaml', 'hook_manager', 'now'],
      ['.github/workflows', 'ci_workflow', 'now'],
      ['docs/AGENTS.md', 'agent_config', 'now'],
      ['pkg/package.json', 'package_json', 'turn'],
      ['sub/.envrc', 'envrc', 'now'],
      ['sub/.vscode', 'editor_tasks', 'now'],
      ['tests/conftest.py', 'test_plugin', 'turn'],
      ['node_modules/.bin/vitest', 'node_bin', 'turn'],
    ]);
  });

  it('holds links out of the folder, FIFOs, a venv, and programs outside the sources', async () => {
    const outside = path.join(root, 'otherproj');
    mkdirSync(path.join(outside, '.github'), { recursive: true });
    symlinkSync(path.join(outside, '.github'), path.join(folder, '.github'));
    symlinkSync('../otherproj', path.join(folder, 'up'));
    symlinkSync('src', path.join(folder, 'inside'));
    put('src/a.ts');
    execFileSync('mkfifo', [path.join(folder, 'pipe')]);
    put('.gitignore', 'build/\n');
    put('build/run.sh', '#!/bin/sh\necho hi\n');
    put('build/app', '\x7fELF', 0o755);
    put('build/notes.txt');
    put('scripts/deploy.sh', '#!/bin/sh\n', 0o755);
    put('.venv/pyvenv.cfg', 'home = /usr/bin\n');
    mkdirSync(path.join(folder, '.venv', 'bin'));
    symlinkSync('/usr/bin/python3', path.join(folder, '.venv', 'bin', 'python'));
    put('.venv/bin/pip', '#!/x/.venv/bin/python\n', 0o755);
    // Python runs a site-packages `.pth` at every start; a package's files and a model's weights run nothing.
    put('.venv/lib/python3.12/site-packages/evil.pth', 'import os; os.system("touch /tmp/x")\n');
    put('.venv/lib/python3.12/site-packages/pkg/__init__.py');
    put('models/model.pth', 'weights');
    // A repository of its own inside the folder: not the project's sources either.
    put('vendor/lib/.git/HEAD', 'ref: refs/heads/main\n');
    put('vendor/lib/tool.sh', '#!/bin/sh\n');
    expect(await classify()).toEqual([
      ['.github', 'link_outside', 'now'],
      ['pipe', 'special_file', 'now'],
      ['up', 'link_outside', 'now'],
      ['build/app', 'executable', 'turn'],
      ['build/run.sh', 'executable', 'turn'],
      ['.venv/bin/pip', 'bin_folder', 'turn'],
      ['.venv/bin/python', 'bin_folder', 'turn'],
      ['vendor/lib/tool.sh', 'executable', 'turn'],
      ['.venv/lib/python3.12/site-packages/evil.pth', 'python_startup', 'turn'],
    ]);
  });

  it("keeps a repository a command made, but holds what git would run: git's own rules", async () => {
    execFileSync('git', ['init', '-q'], { cwd: folder });
    expect(await classify()).toEqual([]);
    execFileSync('git', ['config', 'extensions.worktreeConfig', 'true'], { cwd: folder });
    put('.git/config.worktree', '[core]\n\tfsmonitor = touch /tmp/x\n');
    put('.git/commondir', '../elsewhere\n');
    put('.git/hooks/pre-commit', '#!/bin/sh\n', 0o755);
    put('.git/info/attributes', '* filter=evil\n');
    put('.git/worktrees/w/gitdir', '/x\n');
    put('sub/.git', 'gitdir: ../elsewhere\n');
    // Parents first (by depth, then name).
    expect(await classify()).toEqual([
      ['.git/commondir', 'git', 'now'],
      ['.git/config', 'git', 'now'],
      ['.git/config.worktree', 'git', 'now'],
      ['.git/worktrees', 'git', 'now'],
      ['sub/.git', 'git', 'now'],
      ['.git/hooks/pre-commit', 'git_hooks', 'now'],
      ['.git/info/attributes', 'git', 'now'],
    ]);
  });
});

describe("git's rules", () => {
  const text = (t: string) => async () => t;
  it('let everyday git through and hold what runs', async () => {
    expect(await gitLeftover('src/a.ts', 'file', text(''))).toBeUndefined();
    for (const p of ['.git', '.git/index', '.git/HEAD', '.git/refs/heads/x', '.git/logs/HEAD', '.git/index.lock'])
      expect(await gitLeftover(p, p === '.git' ? 'dir' : 'file', text('')), p).toBeNull();
    expect(await gitLeftover('.git/hooks/pre-push.sample', 'file', text(''))).toBeNull();
    expect(await gitLeftover('.git/hooks/pre-push', 'file', text(''))).toBe('.git/hooks/pre-push');
    expect(await gitLeftover('.git', 'file', text(''))).toBe('.git');
    expect(await gitLeftover('a/.git/modules/x/config', 'file', text(''))).toBe('a/.git/modules');
    expect(await gitLeftover('.git/config', 'file', text('[core]\n\tbare = false\n'))).toBeNull();
    expect(await gitLeftover('.git/config', 'file', text('[include]\n\tpath = x\n'))).toBe('.git/config');
  });

  it('a plain config is what git init and git clone write, nothing that runs a program', () => {
    expect(
      plainGitConfig(
        '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote "origin"]\n\turl = https://github.com/a/b\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n',
      ),
    ).toBe(true);
    for (const bad of [
      '[core]\n\tfsmonitor = touch /tmp/x\n',
      '[core]\n\thooksPath = .h\n',
      '[include]\n\tpath = ../evil\n',
      '[alias]\n\tst = !sh -c evil\n',
      '[extensions]\n\tworktreeConfig = true\n',
      'garbage',
    ])
      expect(plainGitConfig(bad), bad).toBe(false);
  });
});

describe('the looks around a command', () => {
  it('scans for what to mount read-only, at any depth, and finds what changed after a stamp', async () => {
    execFileSync('git', ['init', '-q'], { cwd: folder });
    put('vendor/lib/.git/HEAD', 'ref: refs/heads/main\n');
    put('sub/.git', 'gitdir: ../.git/modules/sub\n');
    put('a/b/package.json', '{}');
    put('a/.vscode/settings.json', '{}');
    put('node_modules/x/package.json', '{}');
    put('lib/site-packages/pkg/__init__.py');
    put('src/a.ts');
    symlinkSync(path.join(root), path.join(folder, 'link-to-root'));
    const scan = await scanFolder(folder);
    expect(scan.gitDirs).toEqual(['.git', 'vendor/lib/.git']);
    expect(scan.gitFiles).toEqual(['sub/.git']);
    expect(scan.readOnly.sort()).toEqual(['a/.vscode', 'a/b/package.json']);

    const stamp = await takeStamp(path.join(root, 'stamps'));
    put('src/b.ts');
    put('a/b/package.json', '{"scripts":{}}');
    chmodSync(path.join(folder, 'src', 'a.ts'), 0o755);
    put('lib/site-packages/pkg/__init__.py', 'changed');
    put('lib/site-packages/evil.pth', 'import os');
    const changed = await changedSince(folder, stamp.file);
    await stamp.remove();
    // The folders whose entries changed too, but nothing untouched, and nothing in node_modules or
    // in site-packages' packages (site-packages' own files, like a `.pth`, are looked at).
    expect(changed.sort()).toEqual([
      'a/b/package.json',
      'lib/site-packages',
      'lib/site-packages/evil.pth',
      'src',
      'src/a.ts',
      'src/b.ts',
    ]);
  });
});
