import type { StateCreator } from 'zustand';
import { call } from '../transport';
import { EMPTY_SESSION } from './sessionState';
import type { AppState, SessionsSlice, SliceEvents } from './types';
import { errorMessage } from '@threadline/protocol';

const byNewest = (a: { updatedAt: number }, b: { updatedAt: number }) => b.updatedAt - a.updatedAt;
const LAST_SESSION_KEY = 'threadline.lastSession';

export const createSessionsSlice: StateCreator<AppState, [], [], SessionsSlice> = (set, get) => ({
  sessions: [],
  activeSessionId: null,
  bySession: {},

  patchSession(id, patch) {
    const prev = get().bySession[id] ?? EMPTY_SESSION;
    const next = { ...prev, ...(typeof patch === 'function' ? patch(prev) : patch) };
    set({ bySession: { ...get().bySession, [id]: next } });
  },

  async loadSessions() {
    const list = await call('sessions.list', {});
    set({ sessions: [...list].sort(byNewest) });
  },

  async createSession(title) {
    try {
      const s = await call('sessions.create', title ? { title } : {});
      get().upsertSession(s);
      await get().selectSession(s.id);
      return s.id;
    } catch (err) {
      get().showToast(errorMessage(err));
      return null;
    }
  },

  async renameSession(id, title) {
    try {
      get().upsertSession(await call('sessions.rename', { id, title }));
    } catch (err) {
      get().showToast(errorMessage(err));
    }
  },

  async deleteSession(id) {
    try {
      await call('sessions.delete', { id });
    } catch (err) {
      get().showToast(errorMessage(err));
      return;
    }
    const rest = get().sessions.filter((s) => s.id !== id);
    set({ sessions: rest });
    if (get().activeSessionId === id) await get().selectSession(rest[0]?.id ?? null);
  },

  async selectSession(id) {
    set({ activeSessionId: id });
    try {
      if (id) localStorage.setItem(LAST_SESSION_KEY, id);
      else localStorage.removeItem(LAST_SESSION_KEY);
    } catch {
      /* storage may be unavailable */
    }
    if (!id) return;
    await Promise.all([get().loadMessages(id), get().loadContext(id)]);
  },

  upsertSession(s) {
    const others = get().sessions.filter((x) => x.id !== s.id);
    set({ sessions: [s, ...others].sort(byNewest) });
  },
});

export function lastSessionId(): string | null {
  try {
    return localStorage.getItem(LAST_SESSION_KEY);
  } catch {
    return null;
  }
}

/** The sessions slice's part of the event stream: the list. */
export const sessionsEvents: SliceEvents = (get, set) => (e) => {
  switch (e.type) {
    case 'session.updated':
      if (e.session === null) {
        set({ sessions: get().sessions.filter((s) => s.id !== e.sessionId) });
        if (get().activeSessionId === e.sessionId) void get().selectSession(get().sessions[0]?.id ?? null);
        return;
      }
      // A helper's session belongs to its parent's chat, never to the list.
      if (e.session.parentId !== undefined) return;
      get().upsertSession(e.session);
      return;
  }
};
