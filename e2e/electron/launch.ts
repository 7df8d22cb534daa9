// Launches the built desktop app through Playwright's _electron, for the e2e `electron`
// project. On machines without an Electron binary (it is downloaded from GitHub on first use,
// which this kind of machine cannot do) every function here answers with a reason instead, so
// the spec can report itself skipped.
import { _electron, type ElectronApplication, type Page } from '@playwright/test';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// import.meta, not __dirname: e2e is an ES module package.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const desktopDir = join(repoRoot, 'apps', 'desktop');

export type Found<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Where the Electron binary would be, found the way the `electron` package finds it (path.txt,
 * ELECTRON_OVERRIDE_DIST_PATH) but without require('electron'), which would try to download it.
 */
export function findElectronBinary(env: NodeJS.ProcessEnv = process.env): Found<string> {
  let pkgDir: string;
  try {
    pkgDir = dirname(createRequire(join(desktopDir, 'package.json')).resolve('electron/package.json'));
  } catch {
    return { ok: false, reason: 'the electron package is not installed in apps/desktop' };
  }
  const pathFile = join(pkgDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const binary = env.ELECTRON_OVERRIDE_DIST_PATH
    ? join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron')
    : relative
      ? join(pkgDir, 'dist', relative)
      : null;
  if (!binary)
    return { ok: false, reason: `no Electron binary: ${pathFile} is missing (the binary was never downloaded)` };
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    return { ok: false, reason: `no Electron binary: ${binary} is missing or not executable` };
  }
  return { ok: true, value: binary };
}

/** The electron-vite output the app runs from (`pnpm --filter @threadline/desktop build`). */
export function findBuiltApp(): Found<string> {
  const pkg = JSON.parse(readFileSync(join(desktopDir, 'package.json'), 'utf8')) as { main: string };
  const main = join(desktopDir, pkg.main);
  const preload = join(desktopDir, 'out', 'preload', 'index.cjs');
  const renderer = join(desktopDir, 'out', 'renderer', 'index.html');
  for (const file of [main, preload, renderer]) {
    if (!existsSync(file))
      return { ok: false, reason: `the desktop app is not built (${file} is missing): run pnpm build` };
  }
  return { ok: true, value: desktopDir };
}

export interface LaunchedApp {
  app: ElectronApplication;
  /** The main window, loaded. */
  page: Page;
  /** The temporary THREADLINE_DATA_DIR of this launch (removed by close()). */
  dataDir: string;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Extra environment, e.g. THREADLINE_PROVIDER_URL / THREADLINE_MODEL for fake-llm. */
  env?: Record<string, string>;
  /** Reuse a data dir (e.g. to test a restart); default a fresh temp dir. */
  dataDir?: string;
  timeoutMs?: number;
}

/** `{ app: null, reason }` when there is no binary or no build; otherwise the running app. */
export async function launchElectronApp(
  opts: LaunchOptions = {},
): Promise<LaunchedApp | { app: null; reason: string }> {
  const binary = findElectronBinary();
  if (!binary.ok) return { app: null, reason: binary.reason };
  const built = findBuiltApp();
  if (!built.ok) return { app: null, reason: built.reason };

  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'tl-electron-'));
  const args = [built.value];
  // Chromium refuses to start as root with its sandbox on (CI containers); the renderer
  // sandbox the app asks for is still in place for everything but the OS-level layer.
  if (process.getuid?.() === 0) args.unshift('--no-sandbox');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  // Never the dev server: the e2e run tests the built renderer through app://.
  delete env.ELECTRON_RENDERER_URL;
  Object.assign(env, { THREADLINE_DATA_DIR: dataDir, OPENAI_API_KEY: '' }, opts.env);

  const app = await _electron.launch({
    executablePath: binary.value,
    args,
    cwd: repoRoot,
    env,
    timeout: opts.timeoutMs ?? 30_000,
  });
  try {
    const page = await app.firstWindow({ timeout: opts.timeoutMs ?? 30_000 });
    await page.waitForLoadState('domcontentloaded');
    return {
      app,
      page,
      dataDir,
      async close() {
        await app.close().catch(() => undefined);
        if (ownDir) rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await app.close().catch(() => undefined);
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
