import * as z from 'zod';

/**
 * Files a sandboxed command left that make code run later (issue 34): held for the user (moved
 * into the app's data folder, so not in effect) until they keep them (put back) or discard them,
 * on one card per session. Why each one is held is a code the renderer words (en, zh-CN); the
 * rules are the runtime's (packages/agent/src/workspace/protected.ts, sandbox/leftovers.ts).
 *
 * Codes: git (a repository's config, commondir, a `.git` file, modules/, worktrees/…), git_hooks
 * (a git hook, .husky/, .githooks/), hook_manager (.pre-commit-config.yaml, lefthook…),
 * editor_tasks (.vscode/, .idea/…), devcontainer, ci_workflow, envrc, agent_config (AGENTS.md,
 * CLAUDE.md, .claude/…), mcp_config (.mcp.json), package_json, makefile, package_manager_config
 * (.npmrc, .yarnrc…), node_bin (node_modules/.bin), bin_folder (a virtualenv's bin/, vendor/bin),
 * test_plugin (conftest.py…), python_startup (a `.pth` file in site-packages, sitecustomize.py: Python
 * runs them at every start), executable (a program or `#!` script outside the sources),
 * link_outside (a link that leads out of the folder), special_file (a FIFO, socket or device),
 * mcp_launch (a file a configured MCP server starts: file tools only).
 */
export const HeldReasonSchema = z.enum([
  'git',
  'git_hooks',
  'hook_manager',
  'editor_tasks',
  'devcontainer',
  'ci_workflow',
  'envrc',
  'agent_config',
  'mcp_config',
  'package_json',
  'makefile',
  'package_manager_config',
  'node_bin',
  'bin_folder',
  'test_plugin',
  'python_startup',
  'executable',
  'link_outside',
  'special_file',
  'mcp_launch',
]);
export type HeldReason = z.infer<typeof HeldReasonSchema>;

export const HeldKindSchema = z.enum(['file', 'dir', 'link', 'fifo', 'socket', 'device']);
export type HeldKind = z.infer<typeof HeldKindSchema>;

export const HeldFileSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  folder: z.string(),
  /** Where it was, relative to the folder (`/`-separated). */
  path: z.string(),
  kind: HeldKindSchema,
  reason: HeldReasonSchema,
  /** A folder: how many entries it holds, all levels (capped count). */
  entries: z.number().int().nonnegative().nullable(),
  /** A link: what it points at, as written. */
  target: z.string().nullable(),
  /** A FIFO, socket or device cannot be kept across file systems: discarding is all that is left. */
  keepable: z.boolean(),
  createdAt: z.number().int(),
});
export type HeldFile = z.infer<typeof HeldFileSchema>;

/** Why a held file could not be put back on Keep (it stays held). */
export const HeldKeepFailureSchema = z.object({
  path: z.string(),
  why: z.enum(['occupied', 'folder_gone', 'not_keepable']),
});
export type HeldKeepFailure = z.infer<typeof HeldKeepFailureSchema>;
