// Threadline's Electron main process, in start-up order: data dir → single-instance lock →
// sandbox + privileged app:// scheme → (ready) session hardening → runtime → IPC → menu →
// window. Security decisions live in ./security (pure) and are wired in ./harden.ts and
// ./ipc.ts; this file only orders them. index.ts calls runApp with the real runtime.
import {
  app,
  BrowserWindow,
  dialog,
  nativeTheme,
  protocol,
  safeStorage,
  session,
  shell,
  type WebContents,
} from 'electron';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AppCommand } from '@threadline/protocol';
import { hardenSession, hardenWebContents, type HardenOptions } from './harden';
import { createEventForwarder, registerIpc, sendCommand } from './ipc';
import { installAppMenu } from './menu/install';
import { menuStrings, type MenuLanguage } from './menu/strings';
import { dataFiles, resolveDataDir } from './paths';
import type { DesktopRuntime, OpenRuntime } from './runtimeTypes';
import { safeStorageEncryptor } from './secrets';
import { APP_SCHEME, cspHeader, resolveRendererLocation, serveAppAsset } from './security';
import { withSettingsObserver } from './settingsObserver';
import { createMainWindow } from './window';
import { errorMessage } from '@threadline/protocol';
import { offerFreshDatabase } from './damagedDatabase';

export interface RunAppOptions {
  openRuntime: OpenRuntime;
  env: Record<string, string | undefined>;
  /** Folder of the built main bundle (out/main); preload and renderer sit beside it. */
  mainDir: string;
  log?: (message: string) => void;
}

export interface RunningApp {
  /** Resolves when start-up has finished (or failed and asked the app to exit). */
  ready: Promise<void>;
}

export function runApp(opts: RunAppOptions): RunningApp {
  const log = opts.log ?? ((message: string) => console.warn(`[threadline] ${message}`));
  const preloadPath = join(opts.mainDir, '../preload/index.cjs');
  const rendererDir = join(opts.mainDir, '../renderer');
  const location = resolveRendererLocation(opts.env, app.isPackaged);
  const dataDir = resolveDataDir(opts.env, app.getPath('userData'), process.cwd());
  // A data-dir override moves Chromium's profile too, so a test or portable instance shares
  // nothing (not even the single-instance lock) with the user's normal one.
  if (dataDir.overridden) app.setPath('userData', dataDir.dir);

  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return { ready: Promise.resolve() };
  }

  // Every renderer sandboxed, whatever a future window forgets to set.
  app.enableSandbox();
  // app:// behaves like https for the renderer (secure context, fetch, module scripts with
  // `crossorigin`, V8 code cache) while serving only the built renderer folder.
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true, codeCache: true },
    },
  ]);

  const hardenOptions: HardenOptions = {
    location,
    openExternal: (url) =>
      void shell.openExternal(url).catch((err: unknown) => log(`could not open ${url}: ${String(err)}`)),
    log,
  };
  const windows = new Set<BrowserWindow>();
  let runtime: DesktopRuntime | null = null;
  /** The menu's language: the one chosen in Settings, else (null there) the system's. */
  let language: MenuLanguage = 'en';

  const appContents = (): WebContents[] => [...windows].filter((w) => !w.isDestroyed()).map((w) => w.webContents);
  const commandTarget = (): WebContents | null => {
    const focused = BrowserWindow.getFocusedWindow();
    if (focused && windows.has(focused)) return focused.webContents;
    return appContents()[0] ?? null;
  };
  const openWindow = (): BrowserWindow => {
    const win = createMainWindow({ location, preloadPath, stateFile: dataFiles(dataDir.dir).windowState });
    windows.add(win);
    win.on('closed', () => windows.delete(win));
    return win;
  };
  const refreshMenu = (next: MenuLanguage): void => {
    language = next;
    installAppMenu(
      language,
      location.dev,
      (command: AppCommand) => void sendCommand(commandTarget(), command, location),
    );
  };

  // VS Code-style: every webContents ever created gets the navigation / window.open / webview
  // policy before it can load anything.
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, hardenOptions));
  app.on('second-instance', () => {
    const win = [...windows][0];
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.focus();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (runtime && windows.size === 0) openWindow();
  });
  let quitting = false;
  app.on('will-quit', (event) => {
    if (quitting || !runtime) return;
    // Let running turns persist their partial answers before the store closes.
    event.preventDefault();
    quitting = true;
    void runtime
      .close()
      .catch((err: unknown) => log(`shutdown: ${String(err)}`))
      .finally(() => app.quit());
  });

  async function start(): Promise<void> {
    await app.whenReady();
    hardenSession(session.defaultSession, hardenOptions);
    const csp = cspHeader(location);
    protocol.handle(APP_SCHEME, async (request) => {
      const res = await serveAppAsset(rendererDir, request.url, csp, (file) => readFile(file));
      return new Response(res.body as ConstructorParameters<typeof Response>[0], {
        status: res.status,
        headers: res.headers,
      });
    });

    const runtimeOptions = {
      dataDir: dataDir.dir,
      encryptor: safeStorageEncryptor(safeStorage, process.platform),
      emit: createEventForwarder(appContents, location),
      env: opts.env,
      cwd: homedir(),
      log,
    };
    // The settings (and their language) are in the database that did not open: the system's.
    const startLanguage: MenuLanguage = app.getLocale().startsWith('zh') ? 'zh-CN' : 'en';
    const reportAndExit = (err: unknown): void => {
      // A newer database is reported, never touched.
      dialog.showErrorBox(menuStrings(startLanguage).startupErrorTitle, errorMessage(err));
      app.exit(1);
    };
    try {
      runtime = opts.openRuntime(runtimeOptions);
    } catch (err) {
      // A damaged database: start fresh (keeping it under a dated name) or quit, as the user says.
      const choice = await offerFreshDatabase(err, dataFiles(dataDir.dir).database, startLanguage, (o) =>
        dialog.showMessageBox(o),
      );
      if (choice === null) {
        reportAndExit(err);
        return;
      }
      const detail = errorMessage(err);
      if (!choice.startFresh) {
        log(`start-up: ${detail} The user quit.`);
        app.exit(1);
        return;
      }
      try {
        runtime = opts.openRuntime({ ...runtimeOptions, keepDamagedAs: choice.keepAs });
        log(`start-up: ${detail} Kept as ${choice.keepAs}; a new database was opened.`);
      } catch (again) {
        reportAndExit(again);
        return;
      }
    }

    const api = withSettingsObserver(runtime.api, (settings) => {
      const next = settings.language ?? startLanguage;
      if (next !== language) refreshMenu(next);
      // Native parts (menus, scrollbars, dialogs, the window background) follow the app's theme.
      nativeTheme.themeSource = settings.theme;
    });
    registerIpc({
      api,
      location,
      isAppWebContents: (id) => appContents().some((wc) => wc.id === id),
      onRefused: log,
    });
    refreshMenu(startLanguage);
    // Reading the settings once sets the menu language through the observer.
    await api['settings.get']({}).catch(() => undefined);
    openWindow();
    const warnings = runtime.startupWarnings ?? [];
    if (warnings.length > 0) {
      const strings = menuStrings(language);
      void dialog.showMessageBox({
        type: 'warning',
        message: strings.startupWarningTitle,
        detail: warnings.join('\n\n'),
      });
    }
  }

  const ready = start().catch((err: unknown) => {
    log(`start-up failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    app.exit(1);
  });
  return { ready };
}
