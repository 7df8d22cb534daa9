import type { AppCommand } from '@threadline/protocol';
import { IS_MAC, isMod } from './platform';

type Shell = 'electron' | 'browser';

interface Combo {
  key: string;
  shift: boolean;
}

/**
 * The app's shortcuts. In the desktop app the menu owns them (CmdOrCtrl+N, L, ","). A browser
 * keeps Ctrl/⌘+N for a new window and never hands it to the page, so browser mode uses
 * Ctrl/⌘+Shift+O for a new session, as other chat apps in a browser do.
 */
const COMBOS: Record<Shell, Record<AppCommand, Combo>> = {
  electron: {
    'new-session': { key: 'n', shift: false },
    'focus-input': { key: 'l', shift: false },
    'open-settings': { key: ',', shift: false },
  },
  browser: {
    'new-session': { key: 'o', shift: true },
    'focus-input': { key: 'l', shift: false },
    'open-settings': { key: ',', shift: false },
  },
};

type KeyLike = Pick<KeyboardEvent, 'key' | 'metaKey' | 'ctrlKey' | 'shiftKey' | 'altKey'>;

/** The command a key press stands for, or null. */
export function matchShortcut(e: KeyLike, shell: Shell): AppCommand | null {
  if (!isMod(e) || e.altKey) return null;
  const key = e.key.toLowerCase();
  for (const [cmd, c] of Object.entries(COMBOS[shell]) as [AppCommand, Combo][]) {
    if (c.key === key && c.shift === e.shiftKey) return cmd;
  }
  return null;
}

/** What a key hint shows: "Ctrl N", "Ctrl Shift O", "⌘ ⇧ O" (symbols, the same in every language). */
export function shortcutLabel(cmd: AppCommand, shell: Shell): string {
  const c = COMBOS[shell][cmd];
  const parts = [IS_MAC ? '⌘' : 'Ctrl'];
  if (c.shift) parts.push(IS_MAC ? '⇧' : 'Shift');
  parts.push(c.key.toUpperCase());
  return parts.join(' ');
}

/**
 * Esc stops a streaming reply only when nothing else wants it: not in a field other than the
 * composer (rename, search, memory edit), not while a dialog, menu or popover is open (they take
 * Esc themselves and mark it handled).
 */
export function escapeStopsReply(
  e: Pick<KeyboardEvent, 'key' | 'defaultPrevented' | 'target'>,
  composerId: string,
): boolean {
  if (e.key !== 'Escape' || e.defaultPrevented) return false;
  const t = e.target as (EventTarget & { tagName?: string; id?: string; isContentEditable?: boolean }) | null;
  const tag = t?.tagName?.toLowerCase();
  const editable = tag === 'input' || tag === 'textarea' || tag === 'select' || t?.isContentEditable === true;
  return !editable || t?.id === composerId;
}
