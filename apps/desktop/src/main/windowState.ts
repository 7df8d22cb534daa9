import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';

/** Size, position and maximized flag of the main window, kept in `window-state.json` in userData. */
export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_WINDOW_SIZE = { width: 1200, height: 800 } as const;
export const MIN_WINDOW_SIZE = { width: 640, height: 480 } as const;
/** How much of the window must be on a display for the saved position to count as visible. */
const MIN_VISIBLE = { width: 120, height: 40 } as const;

const int = z.number().int().min(-100_000).max(100_000);
const StoredStateSchema = z.object({
  x: int.optional(),
  y: int.optional(),
  width: z.number().int().min(1).max(100_000),
  height: z.number().int().min(1).max(100_000),
  maximized: z.boolean().default(false),
});

export function defaultWindowState(): WindowState {
  return { ...DEFAULT_WINDOW_SIZE, maximized: false };
}

/** A damaged, missing or foreign file is not an error: the window opens with the defaults. */
export function parseWindowState(text: string | null): WindowState {
  if (text === null) return defaultWindowState();
  try {
    const parsed = StoredStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : defaultWindowState();
  } catch {
    return defaultWindowState();
  }
}

/**
 * Fit a saved state onto the displays that exist now (a monitor may have been unplugged or the
 * resolution changed): keep the position when enough of the title bar region lies on some
 * display's work area, shrink the size to that display, otherwise center on the primary display.
 */
export function clampToDisplays(state: WindowState, workAreas: Rect[], primary: Rect): WindowState {
  const width = Math.max(MIN_WINDOW_SIZE.width, state.width);
  const height = Math.max(MIN_WINDOW_SIZE.height, state.height);
  if (state.x !== undefined && state.y !== undefined) {
    const bounds = { x: state.x, y: state.y, width, height };
    const titleBar = { x: bounds.x, y: bounds.y, width: bounds.width, height: MIN_VISIBLE.height };
    const host = workAreas.find((area) => {
      const overlap = intersection(titleBar, area);
      return overlap.width >= Math.min(MIN_VISIBLE.width, bounds.width) && overlap.height >= MIN_VISIBLE.height;
    });
    if (host) {
      const w = Math.min(width, host.width);
      const h = Math.min(height, host.height);
      // Pull the window fully inside the display it is on.
      const x = clamp(bounds.x, host.x, host.x + host.width - w);
      const y = clamp(bounds.y, host.y, host.y + host.height - h);
      return { x, y, width: w, height: h, maximized: state.maximized };
    }
  }
  const w = Math.min(width, primary.width);
  const h = Math.min(height, primary.height);
  return {
    x: primary.x + Math.round((primary.width - w) / 2),
    y: primary.y + Math.round((primary.height - h) / 2),
    width: w,
    height: h,
    maximized: state.maximized,
  };
}

export function loadWindowState(file: string): WindowState {
  let text: string | null = null;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = null;
  }
  return parseWindowState(text);
}

/** Written to a temp file then renamed, so a crash mid-write never leaves half a JSON file. */
export function saveWindowState(file: string, state: WindowState): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2));
  renameSync(tmp, file);
}

function intersection(a: Rect, b: Rect): { width: number; height: number } {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return { width: Math.max(0, width), height: Math.max(0, height) };
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), Math.max(min, max));
}
