import { describe, expect, it } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import type { AppCommand } from '@threadline/protocol';
import { buildMenuTemplate } from '../template';
import { MENU_STRINGS, menuStrings } from '../strings';

function flatten(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])]);
}

function build(language: 'en' | 'zh-CN', platform: NodeJS.Platform, dev = false) {
  const sent: AppCommand[] = [];
  const items = flatten(buildMenuTemplate({ language, platform, dev, send: (c) => sent.push(c) }));
  const byAccel = (accel: string) => items.filter((i) => i.accelerator === accel);
  const click = (item: MenuItemConstructorOptions | undefined) => {
    // Electron calls click(menuItem, window, event); the template ignores the arguments.
    (item?.click as (() => void) | undefined)?.();
  };
  return { items, sent, byAccel, click };
}

describe('app menu', () => {
  for (const platform of ['linux', 'win32', 'darwin'] as const) {
    it(`has the shortcuts and sends commands on ${platform}`, () => {
      const m = build('en', platform);
      const expected: [string, AppCommand, string][] = [
        ['CmdOrCtrl+N', 'new-session', 'New Session'],
        ['CmdOrCtrl+L', 'focus-input', 'Focus Message Input'],
        ['CmdOrCtrl+,', 'open-settings', 'Settings…'],
      ];
      for (const [accel, command, label] of expected) {
        const items = m.byAccel(accel);
        expect(items, accel).toHaveLength(1);
        expect(items[0]!.label).toBe(label);
        m.click(items[0]);
        expect(m.sent.at(-1)).toBe(command);
      }
    });
  }

  it('follows the language setting', () => {
    const zh = build('zh-CN', 'linux');
    expect(zh.byAccel('CmdOrCtrl+N')[0]!.label).toBe('新建会话');
    expect(zh.items.filter((i) => i.role === undefined && i.type !== 'separator').map((i) => i.label)).toContain(
      '文件',
    );
    expect(zh.items.find((i) => i.role === 'copy')!.label).toBe('复制');
  });

  it('labels every visible item in both languages', () => {
    for (const language of ['en', 'zh-CN'] as const) {
      for (const platform of ['linux', 'darwin'] as const) {
        for (const item of build(language, platform, true).items) {
          if (item.type === 'separator') continue;
          expect(item.label, JSON.stringify(item.role)).toBeTruthy();
        }
      }
    }
  });

  it('has the same keys in both dictionaries and falls back to English', () => {
    expect(Object.keys(MENU_STRINGS['zh-CN']).sort()).toEqual(Object.keys(MENU_STRINGS.en).sort());
    expect(menuStrings('fr')).toBe(MENU_STRINGS.en);
  });

  it('shows developer items only in dev builds', () => {
    expect(build('en', 'linux').items.some((i) => i.role === 'toggleDevTools')).toBe(false);
    expect(build('en', 'linux', true).items.some((i) => i.role === 'toggleDevTools')).toBe(true);
  });

  it('puts the app menu first on macOS only', () => {
    expect(buildMenuTemplate({ language: 'en', platform: 'darwin', dev: false, send: () => {} })[0]!.label).toBe(
      'Threadline',
    );
    expect(buildMenuTemplate({ language: 'en', platform: 'linux', dev: false, send: () => {} })[0]!.label).toBe('File');
  });
});
