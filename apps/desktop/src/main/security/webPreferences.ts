import type { WebPreferences } from 'electron';

/**
 * The one place the renderer's privileges are decided. Every value here is a
 * security decision; the tests pin each of them.
 */
export function webPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    experimentalFeatures: false,
    enableBlinkFeatures: '',
    navigateOnDragDrop: false,
    spellcheck: true,
    safeDialogs: true,
  };
}
