// What a stdio server's start goes through, as the user sees it in Settings: starting the command,
// downloading its package (a package runner's first start: npx, uvx…), listing its tools.
import path from 'node:path';
import type { McpStartStage } from '@threadline/protocol';

/** Commands that fetch a package before they run it (a first start downloads it). */
const PACKAGE_RUNNERS = new Set(['npx', 'npm', 'pnpm', 'pnpx', 'yarn', 'bunx', 'bun', 'uvx', 'uv', 'pipx', 'deno']);

export function isPackageRunner(command: string): boolean {
  return PACKAGE_RUNNERS.has(
    path
      .basename(command.replaceAll('\\', '/'))
      .toLowerCase()
      .replace(/\.(cmd|exe|bat)$/, ''),
  );
}

/**
 * What makes a runner say when it downloads: npm (npx) logs each fetch at its `http` level, on
 * stderr (and is asked not to advertise its own updates there); uv says "Downloading …" by itself.
 * Nothing else of the server's start changes.
 */
export function stageEnv(command: string): Record<string, string> {
  const name = path
    .basename(command)
    .toLowerCase()
    .replace(/\.(cmd|exe)$/, '');
  return name === 'npx' || name === 'npm' ? { npm_config_loglevel: 'http', npm_config_update_notifier: 'false' } : {};
}

/** A runner's own progress line (npm's http log and notices, uv's downloads), not the server's words. */
export function isRunnerProgress(line: string): boolean {
  return /^npm (http|notice)( |$)/.test(line) || isDownloadLine(line);
}

/** A line that says a package is being fetched over the network (not from the runner's cache). */
export function isDownloadLine(line: string): boolean {
  return (
    /^npm http fetch /.test(line) ||
    /^\s*(Downloading|Downloaded|Installed \d+ package|Resolved \d+ package|Prepared \d+ package)/.test(line)
  );
}

export type { McpStartStage };
