import type { Settings } from '@threadline/protocol';

/**
 * The main process's only user-facing strings: the app menu and the start-up dialogs. Main is not React, so this is a
 * plain dictionary that follows `settings.language`; the renderer's i18next files do the rest.
 */
export type MenuLanguage = NonNullable<Settings['language']>;

export interface MenuStrings {
  file: string;
  newSession: string;
  settings: string;
  quit: string;
  edit: string;
  undo: string;
  redo: string;
  cut: string;
  copy: string;
  paste: string;
  selectAll: string;
  view: string;
  focusInput: string;
  reload: string;
  toggleDevTools: string;
  resetZoom: string;
  zoomIn: string;
  zoomOut: string;
  toggleFullScreen: string;
  window: string;
  minimize: string;
  zoom: string;
  close: string;
  front: string;
  about: string;
  services: string;
  hide: string;
  hideOthers: string;
  unhide: string;
  help: string;
  /** Title of the dialog shown when the runtime cannot start (e.g. a database from a newer version). */
  startupErrorTitle: string;
  startupWarningTitle: string;
  /** The damaged-database dialog (damagedDatabase.ts): its sentence ({file}) and its two buttons ({name}). */
  damagedDatabase: string;
  startFresh: string;
  quitButton: string;
}

export const MENU_STRINGS: Record<MenuLanguage, MenuStrings> = {
  en: {
    file: 'File',
    newSession: 'New Session',
    settings: 'Settings…',
    quit: 'Quit Threadline',
    edit: 'Edit',
    undo: 'Undo',
    redo: 'Redo',
    cut: 'Cut',
    copy: 'Copy',
    paste: 'Paste',
    selectAll: 'Select All',
    view: 'View',
    focusInput: 'Focus Message Input',
    reload: 'Reload',
    toggleDevTools: 'Toggle Developer Tools',
    resetZoom: 'Actual Size',
    zoomIn: 'Zoom In',
    zoomOut: 'Zoom Out',
    toggleFullScreen: 'Toggle Full Screen',
    window: 'Window',
    minimize: 'Minimize',
    zoom: 'Zoom',
    close: 'Close Window',
    front: 'Bring All to Front',
    about: 'About Threadline',
    services: 'Services',
    hide: 'Hide Threadline',
    hideOthers: 'Hide Others',
    unhide: 'Show All',
    help: 'Help',
    startupErrorTitle: 'Threadline could not start',
    startupWarningTitle: 'A setting from the environment was not applied',
    damagedDatabase: 'The database {file} is damaged and cannot be opened.',
    startFresh: 'Start fresh — keep the damaged copy as {name}',
    quitButton: 'Quit',
  },
  'zh-CN': {
    file: '文件',
    newSession: '新建会话',
    settings: '设置…',
    quit: '退出 Threadline',
    edit: '编辑',
    undo: '撤销',
    redo: '重做',
    cut: '剪切',
    copy: '复制',
    paste: '粘贴',
    selectAll: '全选',
    view: '视图',
    focusInput: '聚焦消息输入框',
    reload: '重新加载',
    toggleDevTools: '切换开发者工具',
    resetZoom: '实际大小',
    zoomIn: '放大',
    zoomOut: '缩小',
    toggleFullScreen: '切换全屏',
    window: '窗口',
    minimize: '最小化',
    zoom: '缩放',
    close: '关闭窗口',
    front: '全部置于顶层',
    about: '关于 Threadline',
    services: '服务',
    hide: '隐藏 Threadline',
    hideOthers: '隐藏其他',
    unhide: '全部显示',
    help: '帮助',
    startupErrorTitle: 'Threadline 无法启动',
    startupWarningTitle: '未应用来自环境变量的设置',
    damagedDatabase: '数据库 {file} 已损坏，无法打开。',
    startFresh: '重新开始 — 将损坏的副本保留为 {name}',
    quitButton: '退出',
  },
};

export function menuStrings(language: string | undefined): MenuStrings {
  return language === 'zh-CN' ? MENU_STRINGS['zh-CN'] : MENU_STRINGS.en;
}
