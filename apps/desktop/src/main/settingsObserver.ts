import type { AppApi, Settings } from '@threadline/protocol';

/**
 * Main follows a few settings itself (the menu's language). Settings only change through the
 * API, so wrapping `settings.set` (and `settings.get`, for the first read) is enough; no event
 * is needed in the protocol.
 */
export function withSettingsObserver<T extends AppApi>(api: T, onSettings: (settings: Settings) => void): T {
  const notify = (settings: Settings): Settings => {
    try {
      onSettings(settings);
    } catch {
      // The menu failing to rebuild must not fail the user's settings change.
    }
    return settings;
  };
  return {
    ...api,
    'settings.get': async (input: Parameters<AppApi['settings.get']>[0]) => notify(await api['settings.get'](input)),
    'settings.set': async (input: Parameters<AppApi['settings.set']>[0]) => notify(await api['settings.set'](input)),
  };
}
