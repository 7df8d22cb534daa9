// The start-up glue of app.ts against a hand-made fake of the Electron objects it touches
// (there is no Electron binary on CI machines). The runtime is a small in-memory AppApi.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SETTINGS, IPC_CHANNELS, type AppApi, type AppEvent, type Settings } from '@threadline/protocol';
import type { DesktopRuntimeOptions } from '../runtimeTypes';
import { StoreError } from '@threadline/agent';

type Fn = (...args: unknown[]) => unknown;

const fake = vi.hoisted(() => {
  const state = {
    calls: [] as string[],
    appHandlers: new Map<string, Fn>(),
    lock: true,
    isPackaged: true,
    paths: new Map<string, string>(),
    windows: [] as FakeWindowShape[],
    ipcHandlers: new Map<string, Fn>(),
    protocolHandlers: new Map<string, Fn>(),
    schemes: [] as unknown[],
    menus: [] as { label?: string; submenu?: { label?: string; accelerator?: string; click?: Fn }[] }[][],
    errors: [] as [string, string][],
    warnings: [] as [string, string][],
    /** Every showMessageBox's options, and the button it answers with. */
    boxes: [] as { message: string; buttons?: string[] }[],
    boxResponse: 0,
    sessionHooks: new Map<string, Fn>(),
    opened: [] as string[],
  };
  interface FakeWindowShape {
    options: { webPreferences: Record<string, unknown> };
    loaded: string | null;
    webContents: { id: number; sent: [string, unknown][]; getURL: () => string };
  }
  let nextId = 1;
  class BrowserWindow {
    static getFocusedWindow = () => null;
    options: FakeWindowShape['options'];
    loaded: string | null = null;
    handlers = new Map<string, Fn>();
    webContents: FakeWindowShape['webContents'] & Record<string, unknown>;
    constructor(options: FakeWindowShape['options']) {
      this.options = options;
      const id = nextId++;
      const sent: [string, unknown][] = [];
      this.webContents = {
        id,
        sent,
        getURL: () => this.loaded ?? '',
        isDestroyed: () => false,
        send: (c: string, p: unknown) => void sent.push([c, p]),
      };
      state.windows.push(this);
      state.calls.push('window');
    }
    on(e: string, h: Fn) {
      this.handlers.set(e, h);
      return this;
    }
    once(e: string, h: Fn) {
      return this.on(e, h);
    }
    loadURL(url: string) {
      this.loaded = url;
      return Promise.resolve();
    }
    isDestroyed = () => false;
    maximize() {}
    getNormalBounds = () => ({ x: 0, y: 0, width: 1200, height: 800 });
    isMaximized = () => false;
    isMinimized = () => false;
    isFullScreen = () => false;
  }
  const app = {
    get isPackaged() {
      return state.isPackaged;
    },
    getPath: (name: string) => state.paths.get(name) ?? `/nonexistent/${name}`,
    setPath: (name: string, value: string) => void state.paths.set(name, value),
    requestSingleInstanceLock: () => state.lock,
    enableSandbox: () => void state.calls.push('enableSandbox'),
    quit: () => void state.calls.push('quit'),
    exit: (code: number) => void state.calls.push(`exit ${code}`),
    on: (e: string, h: Fn) => void state.appHandlers.set(e, h),
    whenReady: () => {
      state.calls.push('whenReady');
      return Promise.resolve();
    },
    getLocale: () => 'en-US',
  };
  const electron = {
    app,
    BrowserWindow,
    ipcMain: {
      handle: (c: string, h: Fn) => void state.ipcHandlers.set(c, h),
      removeHandler: (c: string) => void state.ipcHandlers.delete(c),
    },
    protocol: {
      registerSchemesAsPrivileged: (s: unknown[]) => {
        state.calls.push('registerSchemes');
        state.schemes.push(...s);
      },
      handle: (scheme: string, h: Fn) => void state.protocolHandlers.set(scheme, h),
    },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (h: Fn) => void state.sessionHooks.set('headers', h) },
        setPermissionRequestHandler: (h: Fn) => void state.sessionHooks.set('request', h),
        setPermissionCheckHandler: (h: Fn) => void state.sessionHooks.set('check', h),
        setDevicePermissionHandler: (h: Fn) => void state.sessionHooks.set('device', h),
      },
    },
    shell: { openExternal: async (url: string) => void state.opened.push(url) },
    dialog: {
      showErrorBox: (t: string, m: string) => void state.errors.push([t, m]),
      showMessageBox: async (o: { message: string; detail?: string; buttons?: string[] }) => {
        state.boxes.push(o);
        if (!o.buttons) state.warnings.push([o.message, o.detail ?? '']);
        return { response: state.boxResponse };
      },
    },
    safeStorage: {
      isEncryptionAvailable: () => true,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptString: (s: string) => Buffer.from(s).reverse(),
      decryptString: (b: Buffer) => Buffer.from(b).reverse().toString(),
    },
    screen: {
      getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
      getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }),
    },
    nativeTheme: { shouldUseDarkColors: false, themeSource: 'system' as string },
    Menu: {
      buildFromTemplate: (t: unknown) => t,
      setApplicationMenu: (m: (typeof state.menus)[number]) => void state.menus.push(m),
    },
  };
  return { state, electron };
});

vi.mock('electron', () => fake.electron);

const { runApp } = await import('../app');

let dir: string;
let settings: Settings;
let runtimeOpts: DesktopRuntimeOptions | null;
let closed: number;

function fakeApi(): AppApi {
  const api: Partial<AppApi> = {
    'settings.get': async () => settings,
    'settings.set': async ({ patch }) => (settings = { ...settings, ...(patch as Partial<Settings>) } as Settings),
    'sessions.list': async () => [],
  };
  return api as AppApi;
}

function start(env: Record<string, string | undefined> = {}, openRuntime?: () => never) {
  return runApp({
    env,
    mainDir: join(dir, 'out', 'main'),
    log: () => {},
    openRuntime:
      openRuntime ??
      ((o) => {
        runtimeOpts = o;
        return {
          api: fakeApi(),
          close: async () => {
            closed++;
          },
        };
      }),
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tl-app-'));
  mkdirSync(join(dir, 'out', 'renderer'), { recursive: true });
  writeFileSync(join(dir, 'out', 'renderer', 'index.html'), '<title>Threadline</title>');
  const s = fake.state;
  s.calls = [];
  s.appHandlers.clear();
  s.lock = true;
  s.isPackaged = true;
  s.paths = new Map([['userData', join(dir, 'userData')]]);
  s.windows = [];
  s.ipcHandlers.clear();
  s.protocolHandlers.clear();
  s.schemes = [];
  s.menus = [];
  s.errors = [];
  s.warnings = [];
  s.boxes = [];
  s.boxResponse = 0;
  s.sessionHooks.clear();
  s.opened = [];
  settings = DEFAULT_SETTINGS;
  runtimeOpts = null;
  closed = 0;
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('runApp', () => {
  it('quits at once when another instance holds the lock', async () => {
    fake.state.lock = false;
    await start().ready;
    expect(fake.state.calls).toEqual(['quit']);
    expect(fake.state.windows).toEqual([]);
  });

  it('sandboxes and registers app:// before ready, then opens one hardened window on app://', async () => {
    await start({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }).ready;
    const calls = fake.state.calls;
    expect(calls.indexOf('enableSandbox')).toBeLessThan(calls.indexOf('whenReady'));
    expect(calls.indexOf('registerSchemes')).toBeLessThan(calls.indexOf('whenReady'));
    expect(fake.state.schemes).toEqual([
      expect.objectContaining({ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }),
    ]);
    expect(fake.state.windows).toHaveLength(1);
    const win = fake.state.windows[0]!;
    // Packaged: the dev-server override is ignored.
    expect(win.loaded).toBe('app://threadline/index.html');
    expect(win.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    });
    expect(String(win.options.webPreferences.preload)).toBe(join(dir, 'out', 'preload', 'index.cjs'));
    expect([...fake.state.sessionHooks.keys()].sort()).toEqual(['check', 'device', 'headers', 'request']);
    expect(fake.state.appHandlers.has('web-contents-created')).toBe(true);
  });

  it('keeps its data in userData, or in THREADLINE_DATA_DIR which also becomes userData', async () => {
    await start().ready;
    expect(runtimeOpts!.dataDir).toBe(join(dir, 'userData'));
    const custom = join(dir, 'custom');
    await start({ THREADLINE_DATA_DIR: custom }).ready;
    expect(runtimeOpts!.dataDir).toBe(custom);
    expect(fake.state.paths.get('userData')).toBe(custom);
    expect(runtimeOpts!.encryptor.available()).toBe(true);
  });

  it('serves the renderer through app:// with the CSP', async () => {
    await start().ready;
    const handler = fake.state.protocolHandlers.get('app')!;
    const res = (await handler({ url: 'app://threadline/index.html' })) as Response;
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<title>Threadline</title>');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const outside = (await handler({ url: 'app://threadline/%2e%2e%2fmain%2findex.js' })) as Response;
    expect(outside.status).toBe(404);
  });

  it('answers IPC only from its window, and forwards runtime events to it', async () => {
    await start().ready;
    const win = fake.state.windows[0]!;
    const invoke = fake.state.ipcHandlers.get(IPC_CHANNELS.invoke)!;
    expect([...fake.state.ipcHandlers.keys()]).toEqual([IPC_CHANNELS.invoke]);
    const fromWindow = {
      sender: { id: win.webContents.id },
      senderFrame: { url: 'app://threadline/index.html', parent: null },
    };
    expect(await invoke(fromWindow, 'sessions.list', {})).toEqual({ ok: true, data: [] });
    const stranger = { sender: { id: 999 }, senderFrame: { url: 'app://threadline/index.html', parent: null } };
    expect(await invoke(stranger, 'sessions.list', {})).toMatchObject({ ok: false, error: { code: 'forbidden' } });

    const event: AppEvent = { type: 'session.updated', sessionId: 's', session: null, busy: false };
    runtimeOpts!.emit(event);
    expect(win.webContents.sent).toEqual([[IPC_CHANNELS.event, event]]);
  });

  it('follows the settings: menu language (rebuilt on change) and native theme', async () => {
    settings = { ...DEFAULT_SETTINGS, language: 'zh-CN', theme: 'dark' };
    await start().ready;
    expect(fake.electron.nativeTheme.themeSource).toBe('dark');
    const label = (menu: (typeof fake.state.menus)[number]) =>
      menu.flatMap((m) => m.submenu ?? []).find((i) => i.accelerator === 'CmdOrCtrl+N')?.label;
    expect(label(fake.state.menus.at(-1)!)).toBe('新建会话');
    const win = fake.state.windows[0]!;
    const invoke = fake.state.ipcHandlers.get(IPC_CHANNELS.invoke)!;
    const fromWindow = {
      sender: { id: win.webContents.id },
      senderFrame: { url: 'app://threadline/index.html', parent: null },
    };
    await invoke(fromWindow, 'settings.set', { patch: { language: 'en', theme: 'light' } });
    expect(fake.electron.nativeTheme.themeSource).toBe('light');
    const menu = fake.state.menus.at(-1)!;
    expect(label(menu)).toBe('New Session');
    menu.flatMap((m) => m.submenu ?? []).find((i) => i.accelerator === 'CmdOrCtrl+N')!.click!();
    expect(win.webContents.sent).toContainEqual([IPC_CHANNELS.command, 'new-session']);
  });

  it('reports a runtime that cannot open (e.g. a newer database) and exits without a window', async () => {
    await start({}, () => {
      throw new Error('This database was written by a newer Threadline (schema 9).');
    }).ready;
    expect(fake.state.errors).toEqual([
      ['Threadline could not start', 'This database was written by a newer Threadline (schema 9).'],
    ]);
    expect(fake.state.calls).toContain('exit 1');
    expect(fake.state.windows).toEqual([]);
  });

  describe('a damaged database', () => {
    // The runtime throws what the store throws for a damaged file (onCorrupt 'report'), then opens
    // when told to keep the damaged file as offered.
    const damagedThenFresh = () => {
      const seen: DesktopRuntimeOptions[] = [];
      const openRuntime = (o: DesktopRuntimeOptions) => {
        seen.push(o);
        if (o.keepDamagedAs === undefined)
          throw new StoreError(
            'corrupt',
            `The database ${o.dataDir}/threadline.sqlite is damaged (x).`,
            undefined,
            `${o.dataDir}/threadline.sqlite.corrupt-1`,
          );
        return { api: fakeApi(), close: async () => undefined };
      };
      return { seen, openRuntime };
    };

    it('Start fresh: opens the runtime again keeping the damaged file as offered, and a window', async () => {
      const { seen, openRuntime } = damagedThenFresh();
      await start({}, openRuntime as never).ready;
      const dataDir = join(dir, 'userData');
      expect(fake.state.boxes).toEqual([
        expect.objectContaining({
          message: `The database ${dataDir}/threadline.sqlite is damaged and cannot be opened.`,
          buttons: ['Start fresh — keep the damaged copy as threadline.sqlite.corrupt-1', 'Quit'],
        }),
      ]);
      expect(seen.map((o) => o.keepDamagedAs)).toEqual([undefined, `${dataDir}/threadline.sqlite.corrupt-1`]);
      expect(fake.state.windows).toHaveLength(1);
      expect(fake.state.errors).toEqual([]);
    });

    it('Quit: exits without a window, another runtime or an error box', async () => {
      fake.state.boxResponse = 1;
      const { seen, openRuntime } = damagedThenFresh();
      await start({}, openRuntime as never).ready;
      expect(fake.state.boxes).toHaveLength(1);
      expect(seen).toHaveLength(1);
      expect(fake.state.calls).toContain('exit 1');
      expect(fake.state.windows).toEqual([]);
      expect(fake.state.errors).toEqual([]);
    });
  });

  it('shows what from the environment did not apply, and still opens the window', async () => {
    await start({}, (() => ({
      api: fakeApi(),
      startupWarnings: ['THREADLINE_CONTEXT_WINDOW must be a whole number of tokens above 0, got "128k".'],
      close: async () => undefined,
    })) as never).ready;
    expect(fake.state.windows).toHaveLength(1);
    expect(fake.state.warnings).toEqual([
      [
        'A setting from the environment was not applied',
        'THREADLINE_CONTEXT_WINDOW must be a whole number of tokens above 0, got "128k".',
      ],
    ]);
  });

  it('closes the runtime before quitting', async () => {
    await start().ready;
    const willQuit = fake.state.appHandlers.get('will-quit')!;
    let prevented = false;
    willQuit({ preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    await vi.waitFor(() => expect(fake.state.calls).toContain('quit'));
    expect(closed).toBe(1);
  });
});
