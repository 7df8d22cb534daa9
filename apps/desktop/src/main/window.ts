// Electron glue: the main window. Its privileges come from security/webPreferences, its
// hardening from harden.ts (installed for every webContents in index.ts), its size from
// windowState.ts.
import { BrowserWindow, nativeTheme, screen } from 'electron';
import { webPreferences, type RendererLocation } from './security';
import { clampToDisplays, loadWindowState, MIN_WINDOW_SIZE, saveWindowState } from './windowState';
import { trackWindowState } from './windowTracking';

export interface MainWindowOptions {
  location: RendererLocation;
  preloadPath: string;
  stateFile: string;
}

export function createMainWindow(opts: MainWindowOptions): BrowserWindow {
  const displays = screen.getAllDisplays().map((d) => d.workArea);
  const state = clampToDisplays(loadWindowState(opts.stateFile), displays, screen.getPrimaryDisplay().workArea);
  const win = new BrowserWindow({
    x: state.x,
    y: state.y,
    width: state.width,
    height: state.height,
    minWidth: MIN_WINDOW_SIZE.width,
    minHeight: MIN_WINDOW_SIZE.height,
    title: 'Threadline',
    show: false,
    // Matches the renderer's background so the first frame does not flash.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#151518' : '#ffffff',
    webPreferences: webPreferences(opts.preloadPath),
  });
  if (state.maximized) win.maximize();
  trackWindowState(win, (s) => saveWindowState(opts.stateFile, s));
  win.once('ready-to-show', () => win.show());
  // A failed load leaves an empty window; say why in the log instead of an unhandled rejection.
  win.loadURL(opts.location.entryUrl).catch((err: unknown) => {
    console.warn(`[threadline] the window could not load ${opts.location.entryUrl}: ${String(err)}`);
  });
  return win;
}
