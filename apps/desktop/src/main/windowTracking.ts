import type { Rect, WindowState } from './windowState';

/** The BrowserWindow members window-state tracking reads. */
export interface TrackedWindow {
  on(event: 'resize' | 'move' | 'maximize' | 'unmaximize' | 'close', listener: () => void): unknown;
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  isMinimized(): boolean;
  isFullScreen(): boolean;
}

/** The state to remember: the normal (unmaximized) bounds, so un-maximizing later restores them. */
export function currentWindowState(win: TrackedWindow): WindowState {
  const b = win.getNormalBounds();
  return { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() };
}

/**
 * Saves the window state shortly after it stops moving or resizing, and once more on close.
 * Minimized and full-screen windows are not recorded: reopening in either state is never wanted.
 */
export function trackWindowState(win: TrackedWindow, save: (state: WindowState) => void, debounceMs = 500): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (win.isMinimized() || win.isFullScreen()) return;
    try {
      save(currentWindowState(win));
    } catch {
      // A read-only profile folder must not break the window.
    }
  };
  const schedule = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, debounceMs);
  };
  for (const event of ['resize', 'move', 'maximize', 'unmaximize'] as const) win.on(event, schedule);
  win.on('close', flush);
  return () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
}
