import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clampToDisplays,
  defaultWindowState,
  loadWindowState,
  parseWindowState,
  saveWindowState,
} from '../windowState';

const primary = { x: 0, y: 0, width: 1920, height: 1040 };
const right = { x: 1920, y: 0, width: 1280, height: 984 };

describe('parseWindowState', () => {
  it('reads a saved state', () => {
    expect(parseWindowState('{"x":10,"y":20,"width":900,"height":700,"maximized":true}')).toEqual({
      x: 10,
      y: 20,
      width: 900,
      height: 700,
      maximized: true,
    });
  });

  it('falls back to defaults for missing, corrupt or invalid files', () => {
    expect(parseWindowState(null)).toEqual(defaultWindowState());
    expect(parseWindowState('{"width":')).toEqual(defaultWindowState());
    expect(parseWindowState('{"width":"big","height":3}')).toEqual(defaultWindowState());
    expect(parseWindowState('[]')).toEqual(defaultWindowState());
  });
});

describe('clampToDisplays', () => {
  it('keeps a window that is on a display', () => {
    const state = { x: 100, y: 80, width: 1000, height: 700, maximized: false };
    expect(clampToDisplays(state, [primary, right], primary)).toEqual(state);
    const onRight = { x: 2000, y: 50, width: 900, height: 600, maximized: true };
    expect(clampToDisplays(onRight, [primary, right], primary)).toEqual(onRight);
  });

  it('centers a window whose display is gone', () => {
    const state = { x: 2000, y: 50, width: 900, height: 600, maximized: false };
    expect(clampToDisplays(state, [primary], primary)).toEqual({
      x: 510,
      y: 220,
      width: 900,
      height: 600,
      maximized: false,
    });
  });

  it('shrinks a window larger than its display and pulls it inside', () => {
    const state = { x: 1800, y: -5, width: 3000, height: 2000, maximized: false };
    expect(clampToDisplays(state, [primary, right], primary)).toEqual({
      x: 0,
      y: 0,
      width: 1920,
      height: 1040,
      maximized: false,
    });
  });

  it('centers a window with no saved position and enforces a minimum size', () => {
    expect(clampToDisplays({ width: 100, height: 100, maximized: false }, [primary], primary)).toEqual({
      x: 640,
      y: 280,
      width: 640,
      height: 480,
      maximized: false,
    });
  });

  it('treats a window whose title bar is off-screen as lost', () => {
    // Only the bottom of the window reaches the display: it cannot be dragged back.
    const state = { x: 100, y: -650, width: 800, height: 700, maximized: false };
    expect(clampToDisplays(state, [primary], primary)).toEqual({
      x: 560,
      y: 170,
      width: 800,
      height: 700,
      maximized: false,
    });
  });
});

describe('load/save', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('round-trips through a JSON file and survives a missing or broken one', () => {
    dir = mkdtempSync(join(tmpdir(), 'tl-winstate-'));
    const file = join(dir, 'nested', 'window-state.json');
    expect(loadWindowState(file)).toEqual(defaultWindowState());
    const state = { x: 5, y: 6, width: 1000, height: 750, maximized: true };
    saveWindowState(file, state);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(state);
    expect(loadWindowState(file)).toEqual(state);
    writeFileSync(file, 'garbage');
    expect(loadWindowState(file)).toEqual(defaultWindowState());
  });
});
