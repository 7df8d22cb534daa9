import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, dispatchRoute, type AppApi, type Settings } from '@threadline/protocol';
import { withSettingsObserver } from '../settingsObserver';

function fakeApi(): AppApi {
  let settings: Settings = DEFAULT_SETTINGS;
  const api: Partial<AppApi> = {
    'settings.get': async () => settings,
    'settings.set': async ({ patch }) => (settings = { ...settings, ...(patch as Partial<Settings>) } as Settings),
    'sessions.list': async () => [],
  };
  return api as AppApi;
}

describe('withSettingsObserver', () => {
  it('reports settings after get and set, through the real router', async () => {
    const seen: (string | null)[] = [];
    const api = withSettingsObserver(fakeApi(), (s) => seen.push(s.language));
    await dispatchRoute(api, 'settings.get', {});
    const result = await dispatchRoute(api, 'settings.set', { patch: { language: 'zh-CN' } });
    expect(result.ok && (result.data as Settings).language).toBe('zh-CN');
    expect(seen).toEqual([null, 'zh-CN']);
    expect(await dispatchRoute(api, 'sessions.list', {})).toEqual({ ok: true, data: [] });
  });

  it('does not report rejected patches and survives a throwing observer', async () => {
    const seen: (string | null)[] = [];
    const api = withSettingsObserver(fakeApi(), (s) => {
      seen.push(s.language);
      throw new Error('menu broke');
    });
    const bad = await dispatchRoute(api, 'settings.set', { patch: { language: 'fr' } });
    expect(bad.ok).toBe(false);
    expect(seen).toEqual([]);
    const ok = await dispatchRoute(api, 'settings.set', { patch: { language: 'zh-CN' } });
    expect(ok.ok).toBe(true);
    expect(seen).toEqual(['zh-CN']);
  });
});
