import type { StateCreator } from 'zustand';
import { call } from '../transport';
import type { AppState, SettingsSlice } from './types';
import { errorMessage } from '@threadline/protocol';

export const createSettingsSlice: StateCreator<AppState, [], [], SettingsSlice> = (set, get) => ({
  settings: null,
  providers: [],

  async loadSettings() {
    set({ settings: await call('settings.get', {}) });
  },

  async loadProviders() {
    set({ providers: await call('providers.list', {}) });
  },

  async updateSettings(patch) {
    try {
      set({ settings: await call('settings.set', { patch }) });
      return null;
    } catch (err) {
      // Show the server's reason; reload to undo any optimistic state in the form.
      await get()
        .loadSettings()
        .catch(() => undefined);
      return errorMessage(err);
    }
  },
});
