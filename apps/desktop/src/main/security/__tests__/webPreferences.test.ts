import { describe, expect, it } from 'vitest';
import { webPreferences } from '../webPreferences';

describe('webPreferences', () => {
  const prefs = webPreferences('/app/out/preload/index.cjs');

  it('isolates and sandboxes the renderer', () => {
    expect(prefs.contextIsolation).toBe(true);
    expect(prefs.sandbox).toBe(true);
    expect(prefs.nodeIntegration).toBe(false);
    expect(prefs.nodeIntegrationInWorker).toBe(false);
    expect(prefs.nodeIntegrationInSubFrames).toBe(false);
    expect(prefs.webSecurity).toBe(true);
  });

  it('turns off the other dangerous switches', () => {
    expect(prefs.allowRunningInsecureContent).toBe(false);
    expect(prefs.webviewTag).toBe(false);
    expect(prefs.experimentalFeatures).toBe(false);
    expect(prefs.enableBlinkFeatures).toBe('');
    expect(prefs.navigateOnDragDrop).toBe(false);
  });

  it('uses the given preload', () => {
    expect(prefs.preload).toBe('/app/out/preload/index.cjs');
  });
});
