import { describe, expect, it } from 'vitest';
import { escapeStopsReply, matchShortcut, shortcutLabel } from '../lib/shortcuts';

const key = (
  k: string,
  mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {},
) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe('shortcuts', () => {
  it('desktop: Ctrl+N / L / , are the menu commands', () => {
    expect(matchShortcut(key('n', { ctrlKey: true }), 'electron')).toBe('new-session');
    expect(matchShortcut(key('L', { ctrlKey: true }), 'electron')).toBe('focus-input');
    expect(matchShortcut(key(',', { ctrlKey: true }), 'electron')).toBe('open-settings');
    expect(matchShortcut(key('n'), 'electron')).toBeNull();
    expect(matchShortcut(key('n', { ctrlKey: true, altKey: true }), 'electron')).toBeNull();
  });

  it('browser: a new session is Ctrl+Shift+O, since the browser keeps Ctrl+N for a window', () => {
    expect(matchShortcut(key('n', { ctrlKey: true }), 'browser')).toBeNull();
    expect(matchShortcut(key('O', { ctrlKey: true, shiftKey: true }), 'browser')).toBe('new-session');
    expect(shortcutLabel('new-session', 'browser')).toBe('Ctrl Shift O');
    expect(shortcutLabel('new-session', 'electron')).toBe('Ctrl N');
  });

  it('Esc stops a reply from the composer or the page, not from other fields or handled keys', () => {
    const el = (tagName: string, id = '') => ({ tagName, id }) as unknown as EventTarget;
    const esc = (target: EventTarget | null, defaultPrevented = false) => ({ key: 'Escape', target, defaultPrevented });
    expect(escapeStopsReply(esc(el('TEXTAREA', 'composer-input')), 'composer-input')).toBe(true);
    expect(escapeStopsReply(esc(el('BODY')), 'composer-input')).toBe(true);
    expect(escapeStopsReply(esc(el('INPUT', 'rename')), 'composer-input')).toBe(false);
    expect(escapeStopsReply(esc(el('BODY'), true), 'composer-input')).toBe(false);
    expect(escapeStopsReply({ key: 'Enter', target: el('BODY'), defaultPrevented: false }, 'composer-input')).toBe(
      false,
    );
  });
});
