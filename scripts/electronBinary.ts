// Where Electron's binary is, found the way the `electron` package finds it (path.txt → dist/,
// ELECTRON_OVERRIDE_DIST_PATH) but without require('electron'), which would try to download it.
// Used by `pnpm start`, `pnpm test:electron` and the e2e `electron` project.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const desktopDir = join(repoRoot, 'apps', 'desktop');

export type Found<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The installed `electron` package: its folder and version (null when it is not installed). */
export function electronPackage(): { dir: string; version: string } | null {
  try {
    const file = createRequire(join(desktopDir, 'package.json')).resolve('electron/package.json');
    const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
    return { dir: dirname(file), version };
  } catch {
    return null;
  }
}

export function findElectronBinary(env: NodeJS.ProcessEnv = process.env): Found<string> {
  const pkg = electronPackage();
  if (!pkg) return { ok: false, reason: 'the electron package is not installed in apps/desktop' };
  const pathFile = join(pkg.dir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const binary = env.ELECTRON_OVERRIDE_DIST_PATH
    ? join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron')
    : relative
      ? join(pkg.dir, 'dist', relative)
      : null;
  if (!binary) return { ok: false, reason: 'it was never downloaded' };
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    return { ok: false, reason: `${binary} is missing or not executable` };
  }
  return { ok: true, value: binary };
}
