import path from 'node:path';
import type { HeldReason } from '@threadline/protocol';

/**
 * Paths whose contents make code run later, without another click: git runs hooks and the
 * commands of `.git/config` (core.fsmonitor, core.pager, aliases…) on a plain `git status`,
 * editors run `.vscode/tasks.json` on folder open, package managers run scripts on install, an
 * agent reads `AGENTS.md` into every later session, and so on.
 *
 * This is the one list (RUNS_LATER), and three checks read it:
 * - the file tools: a write to a path of a rule with `asks` asks every time, under every policy,
 *   inside the working folder too (protectedReason, turn/toolStep.ts);
 * - the OS sandbox: the paths of a rule with `readOnly` that exist, at any depth of the working
 *   folder, are mounted read-only for a command (sandbox/scan.ts, sandbox/wrap.ts);
 * - what a sandboxed command leaves: each path it created or changed is matched against the list
 *   (and against git's own rules, sandbox/gitGuard.ts, and the kind rules of sandbox/leftovers.ts)
 *   and held for the user, at once (`held: 'now'`) or at the end of the turn (`held: 'turn'`, for
 *   what the turn's own later commands use: a new package.json, node_modules/.bin…).
 */
export type ProtectedReason = HeldReason;

export interface RunsLaterRule {
  /**
   * What it matches, compared by path segments (case-folded where the file system folds): `dir`
   * a folder at any depth (`.vscode`, `.github/workflows`) and everything in it; `name` a file
   * name at any depth; `suffix` the end of a file name (`.code-workspace`); `within`: a `name` or
   * `suffix` counts only directly in a folder of one of these names.
   */
  dir?: string;
  name?: string;
  suffix?: string;
  within?: readonly string[];
  reason: ProtectedReason;
  /** A file tool's write asks. */
  asks: boolean;
  /** Mounted read-only for a sandboxed command where it exists. */
  readOnly: boolean;
  /** A sandboxed command that creates or changes it: held at once, or at the end of the turn. */
  held: 'now' | 'turn';
}

const rule = (r: RunsLaterRule): RunsLaterRule => r;
const guarded = (reason: ProtectedReason) => ({ reason, asks: true, readOnly: true, held: 'now' as const });

export const RUNS_LATER: readonly RunsLaterRule[] = Object.freeze([
  // All of .git runs code or names code to run (hooks/, config, info/attributes, modules/…); in the
  // sandbox git's own rules (sandbox/gitGuard.ts) keep the parts everyday git writes writable.
  rule({ dir: '.git', ...guarded('git') }),
  rule({ name: '.gitmodules', ...guarded('git') }),
  rule({ dir: '.husky', ...guarded('git_hooks') }),
  rule({ dir: '.githooks', ...guarded('git_hooks') }),
  rule({ dir: '.lefthook', ...guarded('hook_manager') }),
  rule({ name: '.pre-commit-config.yaml', ...guarded('hook_manager') }),
  rule({ name: 'lefthook.yml', ...guarded('hook_manager') }),
  rule({ name: '.lefthook.yml', ...guarded('hook_manager') }),
  rule({ name: 'lefthook.yaml', ...guarded('hook_manager') }),
  rule({ name: '.overcommit.yml', ...guarded('hook_manager') }),
  rule({ dir: '.vscode', ...guarded('editor_tasks') }),
  rule({ dir: '.idea', ...guarded('editor_tasks') }),
  rule({ dir: '.zed', ...guarded('editor_tasks') }),
  rule({ suffix: '.code-workspace', ...guarded('editor_tasks') }),
  rule({ dir: '.devcontainer', ...guarded('devcontainer') }),
  rule({ name: '.devcontainer.json', ...guarded('devcontainer') }),
  rule({ dir: '.github/workflows', ...guarded('ci_workflow') }),
  rule({ name: '.gitlab-ci.yml', ...guarded('ci_workflow') }),
  rule({ dir: '.circleci', ...guarded('ci_workflow') }),
  rule({ name: '.envrc', ...guarded('envrc') }),
  // Other agents' and MCP configuration: a planted one is an instruction (or a server) for every
  // later session, of this app or another.
  rule({ name: 'AGENTS.md', ...guarded('agent_config') }),
  rule({ name: 'CLAUDE.md', ...guarded('agent_config') }),
  rule({ name: 'GEMINI.md', ...guarded('agent_config') }),
  rule({ name: 'copilot-instructions.md', ...guarded('agent_config') }),
  rule({ name: '.cursorrules', ...guarded('agent_config') }),
  rule({ name: '.windsurfrules', ...guarded('agent_config') }),
  rule({ name: '.clinerules', ...guarded('agent_config') }),
  rule({ dir: '.claude', ...guarded('agent_config') }),
  rule({ dir: '.cursor', ...guarded('agent_config') }),
  rule({ dir: '.codex', ...guarded('agent_config') }),
  rule({ dir: '.gemini', ...guarded('agent_config') }),
  rule({ name: '.mcp.json', ...guarded('mcp_config') }),
  rule({ name: '.npmrc', ...guarded('package_manager_config') }),
  rule({ name: '.yarnrc', ...guarded('package_manager_config') }),
  rule({ name: '.yarnrc.yml', ...guarded('package_manager_config') }),
  rule({ name: '.yarnrc.yaml', ...guarded('package_manager_config') }),
  rule({ name: '.pnpmfile.cjs', ...guarded('package_manager_config') }),
  // package.json: every write asks, not only one that changes `scripts`. A write replaces the whole
  // file, and besides `scripts` (with its pre/post and install hooks) the fields that name code to
  // run are many and open-ended (`bin`, `main` for `node .`, `gypfile`, `workspaces` pulling in
  // other packages' scripts, `husky`/`simple-git-hooks`/`lint-staged`, `pnpm` overrides and patches,
  // `config` read by scripts); a diff of some fields would miss the others. One that exists is
  // read-only in the sandbox; a new one (`npm init`) is held when the turn ends, so the turn's
  // later commands can still use it.
  rule({ name: 'package.json', reason: 'package_json', asks: true, readOnly: true, held: 'turn' }),
  rule({ name: 'Makefile', reason: 'makefile', asks: true, readOnly: true, held: 'turn' }),
  rule({ name: 'makefile', reason: 'makefile', asks: true, readOnly: true, held: 'turn' }),
  rule({ name: 'GNUmakefile', reason: 'makefile', asks: true, readOnly: true, held: 'turn' }),
  // What the project's own commands run by convention: held when the turn ends (an install and the
  // tests after it, in one turn, still work), never read-only (installs write them).
  rule({ dir: 'node_modules/.bin', reason: 'node_bin', asks: true, readOnly: false, held: 'turn' }),
  rule({ dir: 'vendor/bin', reason: 'bin_folder', asks: false, readOnly: false, held: 'turn' }),
  rule({ name: 'conftest.py', reason: 'test_plugin', asks: false, readOnly: false, held: 'turn' }),
  // Python runs these at every start of the interpreter whose site-packages holds them (a `.pth`
  // line that starts with `import` is executed); `.pth` elsewhere is a PyTorch model, not code.
  rule({ name: 'sitecustomize.py', reason: 'python_startup', asks: true, readOnly: false, held: 'turn' }),
  rule({ name: 'usercustomize.py', reason: 'python_startup', asks: true, readOnly: false, held: 'turn' }),
  rule({
    suffix: '.pth',
    within: ['site-packages', 'dist-packages'],
    reason: 'python_startup',
    asks: true,
    readOnly: false,
    held: 'turn',
  }),
]);

function fold(p: string, platform: NodeJS.Platform): string {
  return platform === 'darwin' || platform === 'win32' ? p.toLowerCase() : p;
}

function segmentsOf(p: string): string[] {
  return p.split(/[\\/]+/).filter((s) => s !== '');
}

/**
 * The rule a path matches (the first in list order), and where in the path its matched part
 * ends: `.vscode` for `sub/.vscode/tasks.json` is `sub/.vscode` (what a sandbox holds as one).
 * `p` is a path relative to the working folder or absolute; names compare case-insensitively.
 */
export function runsLaterRule(p: string, platform: NodeJS.Platform): { rule: RunsLaterRule; unit: string } | null {
  const raw = segmentsOf(p);
  const segs = segmentsOf(fold(p, platform));
  const base = (segs.at(-1) ?? '').toLowerCase();
  const parent = segs.at(-2) ?? '';
  for (const r of RUNS_LATER) {
    if (r.within && !r.within.includes(parent)) continue;
    if (r.dir !== undefined) {
      const want = segmentsOf(fold(r.dir, platform));
      for (let i = 0; i + want.length <= segs.length; i++)
        if (want.every((w, j) => segs[i + j] === w))
          return { rule: r, unit: joinLike(p, raw.slice(0, i + want.length)) };
    } else if (r.name !== undefined) {
      if (base === r.name.toLowerCase()) return { rule: r, unit: p };
    } else if (r.suffix !== undefined && base.endsWith(r.suffix.toLowerCase()) && base !== r.suffix.toLowerCase())
      return { rule: r, unit: p };
  }
  return null;
}

function joinLike(p: string, segs: string[]): string {
  const joined = segs.join(path.sep);
  return path.isAbsolute(p) ? path.sep + joined : joined;
}

/**
 * Why a write to `target` (resolved: `~`, `..` and symlinks followed) would make code run later,
 * or null: the rules that ask, and `launchTargets`, files and folders a configured MCP server
 * would execute (see launchTargets below); a write to or under one is protected too.
 */
export function protectedReason(
  target: string,
  platform: NodeJS.Platform,
  launch: readonly string[] = [],
): ProtectedReason | null {
  const hit = runsLaterRule(target, platform);
  if (hit?.rule.asks) return hit.rule.reason;
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
