import { isAbsolute, join, resolve } from 'node:path';

import { DATABASE_FILE } from '@threadline/agent';

export { DATABASE_FILE };
export const WINDOW_STATE_FILE = 'window-state.json';

/**
 * Where Threadline keeps its data: Electron's userData folder, or THREADLINE_DATA_DIR when set
 * (tests and portable setups). A relative override is taken relative to the working directory.
 */
export function resolveDataDir(
  env: { THREADLINE_DATA_DIR?: string },
  userData: string,
  cwd: string,
): { dir: string; overridden: boolean } {
  const override = env.THREADLINE_DATA_DIR?.trim();
  if (override) return { dir: isAbsolute(override) ? override : resolve(cwd, override), overridden: true };
  return { dir: userData, overridden: false };
}

export function dataFiles(dataDir: string): { database: string; windowState: string } {
  return { database: join(dataDir, DATABASE_FILE), windowState: join(dataDir, WINDOW_STATE_FILE) };
}
