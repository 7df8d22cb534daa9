// Electron glue for the app menu: build it from the pure template and install it.
import { Menu } from 'electron';
import type { AppCommand } from '@threadline/protocol';
import { buildMenuTemplate } from './template';
import type { MenuLanguage } from './strings';

export function installAppMenu(language: MenuLanguage, dev: boolean, send: (command: AppCommand) => void): void {
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(buildMenuTemplate({ language, platform: process.platform, dev, send })),
  );
}
