// Launches the built desktop app through Playwright's _electron, for the e2e `electron`
// project. On machines without an Electron binary (it is downloaded from GitHub on first use,
// which this kind of machine cannot do) every function here answers with a reason instead, so
// the spec can report itself skipped.
import { _electron, type ElectronApplication, type Page } from '@playwright/test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { desktopDir, findElectronBinary as findBinary, repoRoot, type Found } from '../../scripts/electronBinary';

export type { Found };

/** Where the Electron binary would be (scripts/electronBinary.ts), with the reason when it is not. */
export function findElectronBinary(env: NodeJS.ProcessEnv = process.env): Found<string> {
  const found = findBinary(env);
  return found.ok ? found : { ok: false, reason: `no Electron binary: ${found.reason}` };
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
