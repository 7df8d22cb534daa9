// A stand-in for the `electron` module, just enough for the built main process to start under
// plain Node (see smoke-main.mjs). It records what main does so the smoke test can check it.
export const record = {
  windows: [],
  ipc: new Map(),
  protocols: new Map(),
  schemes: [],
  menus: [],
  errors: [],
  exits: [],
  sessionHooks: [],
};
globalThis.__threadlineFakeElectron = record;

const handlers = new Map();
let nextId = 1;

export class BrowserWindow {
  static getFocusedWindow() {
    return null;
  }
  constructor(options) {
    this.options = options;
    this.loaded = null;
    const sent = [];
    this.webContents = {
      id: nextId++,
      sent,
      getURL: () => this.loaded ?? '',
      isDestroyed: () => false,
      send: (c, p) => sent.push([c, p]),
    };
    record.windows.push(this);
  }
  on() {
    return this;
  }
  once() {
    return this;
  }
  loadURL(url) {
    this.loaded = url;
    return Promise.resolve();
  }
  isDestroyed() {
    return false;
  }
  maximize() {}
  getNormalBounds() {
    return { x: 0, y: 0, width: 1200, height: 800 };
  }
  isMaximized() {
    return false;
  }
  isMinimized() {
    return false;
  }
  isFullScreen() {
    return false;
  }
}

export const app = {
  isPackaged: true,
  getPath: (name) => `${process.env.FAKE_ELECTRON_HOME}/${name}`,
  setPath: () => {},
  requestSingleInstanceLock: () => true,
  enableSandbox: () => {},
  quit: () => record.exits.push('quit'),
  exit: (code) => record.exits.push(code),
  on: (e, h) => handlers.set(e, h),
  whenReady: () => Promise.resolve(),
  getLocale: () => 'en-US',
};
export const ipcMain = { handle: (c, h) => record.ipc.set(c, h), removeHandler: (c) => record.ipc.delete(c) };
export const protocol = {
  registerSchemesAsPrivileged: (s) => record.schemes.push(...s),
  handle: (scheme, h) => record.protocols.set(scheme, h),
};
export const session = {
  defaultSession: {
    webRequest: { onHeadersReceived: () => record.sessionHooks.push('headers') },
    setPermissionRequestHandler: () => record.sessionHooks.push('request'),
    setPermissionCheckHandler: () => record.sessionHooks.push('check'),
    setDevicePermissionHandler: () => record.sessionHooks.push('device'),
  },
};
export const shell = { openExternal: async () => {} };
export const dialog = { showErrorBox: (t, m) => record.errors.push([t, m]) };
export const safeStorage = {
  isEncryptionAvailable: () => true,
  getSelectedStorageBackend: () => 'gnome_libsecret',
  encryptString: (s) => Buffer.from(s).reverse(),
  decryptString: (b) => Buffer.from(b).reverse().toString(),
};
export const screen = {
  getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
  getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }),
};
export const nativeTheme = { shouldUseDarkColors: false };
export const Menu = { buildFromTemplate: (t) => t, setApplicationMenu: (m) => record.menus.push(m) };
export default {
  app,
  BrowserWindow,
  ipcMain,
  protocol,
  session,
  shell,
  dialog,
  safeStorage,
  screen,
  nativeTheme,
  Menu,
};
