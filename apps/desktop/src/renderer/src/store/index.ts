import { create } from 'zustand';
import { bridgeConnection, getBridge, onBridgeConnection, onBridgeReconnect } from '../transport';
import { createChatSlice } from './chatSlice';
import { createCheckpointSlice } from './checkpointSlice';
import { createContextSlice } from './contextSlice';
import { createHelperSlice } from './helperSlice';
import { createEventHandler } from './events';
import { createSessionsSlice } from './sessionsSlice';
import { createSettingsSlice } from './settingsSlice';
import type { AppState } from './types';
import { createUiSlice } from './uiSlice';

export type { AppState } from './types';

/** One store, typed slices: a cache of what the runtime owns, fed by its events. */
export const createAppStore = () =>
  create<AppState>()((...a) => ({
    ...createSessionsSlice(...a),
    ...createChatSlice(...a),
    ...createContextSlice(...a),
    ...createSettingsSlice(...a),
    ...createUiSlice(...a),
    ...createCheckpointSlice(...a),
    ...createHelperSlice(...a),
  }));

export const useAppStore = createAppStore();

/** Subscribe the store to the runtime's events; returns the unsubscribe function. */
export function connectEvents(store = useAppStore): () => void {
  const handle = createEventHandler(store.getState, store.setState);
  const offEvents = getBridge().onEvent(handle);
  // Events sent while the stream was down are gone: reload what they would have changed.
  const offReconnect = onBridgeReconnect(() => {
    const st = store.getState();
    if (st.phase !== 'ready') return;
    void st.loadSessions().catch(() => undefined);
    if (st.activeSessionId) {
      void st.loadMessages(st.activeSessionId).catch(() => undefined);
      void st.loadContext(st.activeSessionId).catch(() => undefined);
    }
  });
  store.getState().setConnection(bridgeConnection());
  const offConnection = onBridgeConnection((s) => store.getState().setConnection(s));
  return () => {
    offEvents();
    offReconnect();
    offConnection();
  };
}
