import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { trackWindowState, type TrackedWindow } from '../windowTracking';
import type { WindowState } from '../windowState';

function fakeWindow() {
  const listeners = new Map<string, (() => void)[]>();
  const w = {
    bounds: { x: 10, y: 20, width: 900, height: 700 },
    maximized: false,
    minimized: false,
    fullScreen: false,
  };
  const win: TrackedWindow = {
    on: (event, l) => listeners.set(event, [...(listeners.get(event) ?? []), l]),
    getNormalBounds: () => w.bounds,
    isMaximized: () => w.maximized,
    isMinimized: () => w.minimized,
    isFullScreen: () => w.fullScreen,
  };
  const emit = (event: string) => listeners.get(event)?.forEach((l) => l());
  return { win, w, emit };
}

describe('trackWindowState', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('saves once after moving/resizing settles, and on close', () => {
    const f = fakeWindow();
    const saved: WindowState[] = [];
    trackWindowState(f.win, (s) => saved.push(s), 500);
    f.emit('move');
    f.w.bounds = { x: 50, y: 60, width: 1000, height: 720 };
    f.emit('resize');
    expect(saved).toEqual([]);
    vi.advanceTimersByTime(500);
    expect(saved).toEqual([{ x: 50, y: 60, width: 1000, height: 720, maximized: false }]);
    f.w.maximized = true;
    f.emit('maximize');
    f.emit('close');
    expect(saved.at(-1)).toEqual({ x: 50, y: 60, width: 1000, height: 720, maximized: true });
    vi.advanceTimersByTime(1000);
    expect(saved).toHaveLength(2);
  });

  it('does not record minimized or full-screen windows, and survives a failing save', () => {
    const f = fakeWindow();
    const saved: WindowState[] = [];
    trackWindowState(f.win, (s) => saved.push(s), 100);
    f.w.minimized = true;
    f.emit('close');
    f.w.minimized = false;
    f.w.fullScreen = true;
    f.emit('close');
    expect(saved).toEqual([]);
    const g = fakeWindow();
    trackWindowState(g.win, () => {
      throw new Error('EROFS');
    });
    expect(() => g.emit('close')).not.toThrow();
  });
});
