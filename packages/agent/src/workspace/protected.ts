import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Paths whose contents make code run later, without another click: git runs hooks and the
 * commands of `.git/config` (core.fsmonitor, core.pager, aliases…) on a plain `git status`,
 * editors run `.vscode/tasks.json` on folder open, package managers run scripts on install, and
 * so on. A write to one asks every time, under every policy, inside the working folder too.
 *
 * This is the one list: the file tools check it (turn/toolStep.ts), and the OS sandbox mounts the
 * same places read-only (PROTECTED_DIRS / PROTECTED_FILES, relative to the working folder).
 */
export type ProtectedReason =
  | 'git'
  | 'git_hooks'
  | 'editor_tasks'
  | 'devcontainer'
  | 'ci_workflow'
  | 'envrc'
  | 'package_json'
  | 'makefile'
  | 'package_manager_config'
  | 'node_bin'
  | 'mcp_launch';

/** Folders (a path segment, at any depth) whose every file is protected, and why. */
export const PROTECTED_DIRS: readonly { dir: string; reason: ProtectedReason }[] = Object.freeze([
  // hooks/, config, info/ (attributes: filter drivers), modules/: all of it runs code or names code to run
  { dir: '.git', reason: 'git' },
  { dir: '.husky', reason: 'git_hooks' },
  { dir: '.githooks', reason: 'git_hooks' },
  { dir: '.vscode', reason: 'editor_tasks' },
  { dir: '.idea', reason: 'editor_tasks' },
  { dir: '.devcontainer', reason: 'devcontainer' },
  { dir: '.github/workflows', reason: 'ci_workflow' },
  { dir: 'node_modules/.bin', reason: 'node_bin' },
]);

/**
 * File names (at any depth, compared case-insensitively) that are protected, and why.
 * package.json: every write asks, not only one that changes `scripts`. A write replaces the whole
 * file, and besides `scripts` (with its pre/post and install hooks) the fields that name code to
 * run are many and open-ended (`bin`, `main` for `node .`, `gypfile`, `workspaces` pulling in
 * other packages' scripts, `husky`/`simple-git-hooks`/`lint-staged`, `pnpm` overrides and patches,
 * `config` read by scripts); a diff of some fields would miss the others.
 */
export const PROTECTED_FILES: readonly { name: string; reason: ProtectedReason }[] = Object.freeze([
  { name: '.envrc', reason: 'envrc' },
  { name: 'package.json', reason: 'package_json' },
  { name: 'Makefile', reason: 'makefile' },
  { name: 'makefile', reason: 'makefile' },
  { name: 'GNUmakefile', reason: 'makefile' },
  { name: '.npmrc', reason: 'package_manager_config' },
  { name: '.yarnrc', reason: 'package_manager_config' },
  { name: '.yarnrc.yml', reason: 'package_manager_config' },
  { name: '.pnpmfile.cjs', reason: 'package_manager_config' },
  { name: '.gitmodules', reason: 'git' },
]);

function fold(p: string, platform: NodeJS.Platform): string {
  return platform === 'darwin' || platform === 'win32' ? p.toLowerCase() : p;
}

function segmentsOf(p: string): string[] {
  return p.split(/[\\/]+/).filter((s) => s !== '');
}

/**
 * Why a write to `target` (resolved: `~`, `..` and symlinks followed) would make code run later,
 * or null. `launchTargets`: files and folders a configured MCP server would execute (see
 * launchTargets below); a write to or under one is protected too.
 */
export function protectedReason(
  target: string,
  platform: NodeJS.Platform,
  launch: readonly string[] = [],
): ProtectedReason | null {
  const segs = segmentsOf(fold(target, platform));
  for (const { dir, reason } of PROTECTED_DIRS) {
    const want = segmentsOf(fold(dir, platform));
    // a segment run anywhere before the file name: `.git/hooks/x`, `sub/.git/config`, `.git` itself
    for (let i = 0; i + want.length <= segs.length; i++) if (want.every((w, j) => segs[i + j] === w)) return reason;
  }
  const base = path.basename(target).toLowerCase();
  // .yarnrc.* variants (yarnrc.yaml…)
  if (base.startsWith('.yarnrc')) return 'package_manager_config';
  for (const { name, reason } of PROTECTED_FILES) if (base === name.toLowerCase()) return reason;
  const t = fold(target, platform);
  for (const l of launch) {
    const f = fold(l, platform);
    if (t === f || t.startsWith(f.endsWith(path.sep) ? f : f + path.sep)) return 'mcp_launch';
  }
  return null;
}

const PYTHON = /^python(\d+(\.\d+)?)?(\.exe)?$/i;
const NPX_LIKE = /^(npx|pnpx|bunx)(\.cmd|\.exe)?$/i;
const SCRIPT_EXT = /\.(py|pyc|js|mjs|cjs|ts|mts|cts|sh|bash|rb|pl|php|jar)$/i;

/**
 * What a stdio MCP server started as `command args…` in folder `cwd` would execute from the file
 * system besides the installed program itself: a command or argument given as a path or script
 * file, the module of `python -m mod` (`mod.py` and the package folder `mod/`, found in cwd
 * first), and for `npx`-like launchers the folder's `node_modules/` (which they prefer to the
 * registry). All resolved against cwd. A model that writes one of these would run code at the
 * next start of the server.
 */
export function launchTargets(command: string, args: readonly string[], cwd: string): string[] {
  const out = new Set<string>();
  const add = (p: string): void => {
    out.add(path.resolve(cwd, p));
  };
  const bin = path.basename(command);
  if (/[\\/]/.test(command) || SCRIPT_EXT.test(command)) add(command);
  const npx = NPX_LIKE.test(bin) || (/^(pnpm|npm|yarn)$/i.test(bin) && /^(dlx|exec|x)$/.test(args[0] ?? ''));
  // npx-like: the arguments are package names (`@scope/server`), not paths; they resolve from node_modules.
  if (npx) {
    add('node_modules');
    return [...out];
  }
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (PYTHON.test(bin) && a === '-m' && i + 1 < args.length) {
      const top = args[i + 1]!.split('.')[0]!;
      if (top !== '') {
        add(`${top}.py`);
        add(top);
      }
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    if (/[\\/]/.test(a) || SCRIPT_EXT.test(a)) add(a);
  }
  return [...out];
}

/**
 * For an OS sandbox: the protected places at the top of a working folder that exist now (a bind
 * mount needs an existing source), and the launch targets inside it. Mounted read-only over the
 * writable folder, they keep a command from planting what protectedReason() guards for the file
 * tools. Nested copies (`sub/.git`) are not listed: walking the tree on every command would cost
 * more than it is worth; the file tools still ask for them.
 */
export function protectedMounts(
  folder: string,
  launch: readonly string[] = [],
  exists: (p: string) => boolean = existsSync,
): string[] {
  const out = new Set<string>();
  for (const { dir } of PROTECTED_DIRS) out.add(path.join(folder, dir));
  for (const { name } of PROTECTED_FILES) out.add(path.join(folder, name));
  out.add(path.join(folder, '.yarnrc.yml'));
  const inside = (p: string): boolean =>
    p === folder || p.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
  for (const l of launch) if (inside(l)) out.add(l);
  return [...out].filter((p) => exists(p)).sort();
}
