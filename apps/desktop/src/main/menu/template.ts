import type { MenuItemConstructorOptions } from 'electron';
import type { AppCommand } from '@threadline/protocol';
import { menuStrings, type MenuLanguage } from './strings';

export interface MenuOptions {
  language: MenuLanguage;
  platform: NodeJS.Platform;
  /** Developer items (reload, devtools) only in unpackaged builds. */
  dev: boolean;
  /** Sends a command to the focused app window. */
  send: (command: AppCommand) => void;
}

/** Keyboard shortcuts of the app menu (Esc for stop and Enter for send live in the renderer). */
export const MENU_ACCELERATORS: Record<AppCommand, string> = {
  'new-session': 'CmdOrCtrl+N',
  'focus-input': 'CmdOrCtrl+L',
  'open-settings': 'CmdOrCtrl+,',
};

/** The app menu as plain data, so its labels, shortcuts and commands are unit-tested. */
export function buildMenuTemplate(opts: MenuOptions): MenuItemConstructorOptions[] {
  const s = menuStrings(opts.language);
  const mac = opts.platform === 'darwin';
  const command = (label: string, cmd: AppCommand): MenuItemConstructorOptions => ({
    label,
    accelerator: MENU_ACCELERATORS[cmd],
    click: () => opts.send(cmd),
  });
  const sep: MenuItemConstructorOptions = { type: 'separator' };

  const appMenu: MenuItemConstructorOptions = {
    label: 'Threadline',
    submenu: [
      { role: 'about', label: s.about },
      sep,
      command(s.settings, 'open-settings'),
      sep,
      { role: 'services', label: s.services },
      sep,
      { role: 'hide', label: s.hide },
      { role: 'hideOthers', label: s.hideOthers },
      { role: 'unhide', label: s.unhide },
      sep,
      { role: 'quit', label: s.quit },
    ],
  };
  const fileMenu: MenuItemConstructorOptions = {
    label: s.file,
    submenu: mac
      ? [command(s.newSession, 'new-session'), sep, { role: 'close', label: s.close }]
      : [
          command(s.newSession, 'new-session'),
          sep,
          command(s.settings, 'open-settings'),
          sep,
          { role: 'quit', label: s.quit },
        ],
  };
  const editMenu: MenuItemConstructorOptions = {
    label: s.edit,
    submenu: [
      { role: 'undo', label: s.undo },
      { role: 'redo', label: s.redo },
      sep,
      { role: 'cut', label: s.cut },
      { role: 'copy', label: s.copy },
      { role: 'paste', label: s.paste },
      { role: 'selectAll', label: s.selectAll },
    ],
  };
  const viewMenu: MenuItemConstructorOptions = {
    label: s.view,
    submenu: [
      command(s.focusInput, 'focus-input'),
      sep,
      ...(opts.dev
        ? ([
            { role: 'reload', label: s.reload },
            { role: 'toggleDevTools', label: s.toggleDevTools },
            sep,
          ] as MenuItemConstructorOptions[])
        : []),
      { role: 'resetZoom', label: s.resetZoom },
      { role: 'zoomIn', label: s.zoomIn },
      { role: 'zoomOut', label: s.zoomOut },
      sep,
      { role: 'togglefullscreen', label: s.toggleFullScreen },
    ],
  };
  const windowMenu: MenuItemConstructorOptions = {
    label: s.window,
    role: 'windowMenu',
    submenu: mac
      ? [
          { role: 'minimize', label: s.minimize },
          { role: 'zoom', label: s.zoom },
          sep,
          { role: 'front', label: s.front },
        ]
      : [
          { role: 'minimize', label: s.minimize },
          { role: 'close', label: s.close },
        ],
  };
  const helpMenu: MenuItemConstructorOptions = {
    label: s.help,
    role: 'help',
    submenu: mac ? [] : [{ role: 'about', label: s.about }],
  };
  return [...(mac ? [appMenu] : []), fileMenu, editMenu, viewMenu, windowMenu, helpMenu];
}
