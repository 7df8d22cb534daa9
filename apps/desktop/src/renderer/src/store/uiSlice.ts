import type { StateCreator } from 'zustand';
import type { AppState, SliceEvents, UiSlice } from './types';
import { lastSessionId } from './sessionsSlice';
import { errorMessage } from '@threadline/protocol';

let toastTimer: ReturnType<typeof setTimeout> | null = null;
/** The side panel open before Settings covered the window; closing Settings brings it back. */
let beneathSettings: AppState['panel'] = 'none';

export const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set, get) => ({
  sidebar: 'auto',
  toggleSidebar(narrow) {
    const s = get().sidebar;
    set({ sidebar: narrow ? (s === 'shown' ? 'auto' : 'shown') : s === 'hidden' ? 'auto' : 'hidden' });
  },
  phase: 'loading',
  connection: 'connecting',
  bootError: null,
  panel: 'none',
  toast: null,
  settingsTab: 'general',

  setConnection(connection) {
    if (connection === get().connection) return;
    if (connection !== 'stopped' && connection !== 'unauthorized') {
      set({ connection });
      return;
    }
    set({ connection });
    get().abortLive();
  },

  openSettings(tab) {
    set({ settingsTab: tab });
    get().setPanel('settings');
  },

  setPanel(panel) {
    const current = get().panel;
    if (panel === 'settings' && current !== 'settings') beneathSettings = current;
    if (current === 'settings' && panel === 'none') {
      set({ panel: beneathSettings });
      beneathSettings = 'none';
      return;
    }
    set({ panel });
  },

  showToast(text) {
    set({ toast: text });
    if (toastTimer) clearTimeout(toastTimer);
    if (text) toastTimer = setTimeout(() => set({ toast: null }), 5000);
  },

  async boot() {
    try {
      await Promise.all([get().loadSettings(), get().loadProviders(), get().loadSessions()]);
    } catch (err) {
      set({ phase: 'error', bootError: errorMessage(err) });
      return;
    }
    if (get().providers.length === 0) {
      set({ phase: 'setup' });
      return;
    }
    set({ phase: 'ready' });
    const sessions = get().sessions;
    const last = lastSessionId();
    const pick = sessions.find((s) => s.id === last)?.id ?? sessions[0]?.id ?? null;
    if (pick)
      await get()
        .selectSession(pick)
        .catch(() => undefined);
  },
});

/** The UI slice's part of the event stream: an error that belongs to no session is a toast. */
export const uiEvents: SliceEvents = (get) => (e) => {
  if (e.type === 'error' && !e.sessionId) get().showToast(e.message);
  // A profile changed outside the form (the window learned from a provider): the form shows it.
  if (e.type === 'providers.changed')
    void get()
      .loadProviders()
      .catch(() => undefined);
};
