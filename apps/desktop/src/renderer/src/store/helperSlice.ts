import type { StateCreator } from 'zustand';
import type { HelperSummary, StoredMessage } from '@threadline/protocol';
import { call } from '../transport';
import type { AppState, HelperSlice, SliceEvents } from './types';

/** In the order of their calls, then their place in the call. */
const byCall = (a: HelperSummary, b: HelperSummary): number => a.createdAt - b.createdAt || a.index - b.index;

function withHelper(list: HelperSummary[], h: HelperSummary): HelperSummary[] {
  const i = list.findIndex((x) => x.id === h.id);
  if (i < 0) return [...list, h].sort(byCall);
  const copy = list.slice();
  copy[i] = h;
  return copy;
}

/** A transcript that has helpers to show: a delegate call, or the notice that a crash stopped some. */
export function hasHelpers(messages: readonly StoredMessage[]): boolean {
  return messages.some(
    (m) =>
      (m.role === 'assistant' && m.tool_calls?.some((c) => c.function.name === 'delegate')) ||
      (m.kind === 'error_notice' && (m.content ?? '').includes('"helpers_interrupted"')),
  );
}

/** Helpers (the delegate tool): each session's rows, and a helper's own transcript opened over the chat. */
export const createHelperSlice: StateCreator<AppState, [], [], HelperSlice> = (set, get) => ({
  openHelper: null,

  async loadHelpers(sessionId) {
    const list = await call('helpers.list', { sessionId }).catch(() => null);
    if (!list) return;
    get().patchSession(sessionId, { helpers: list });
    // One still running may wait for an approval: its card lives in its own session's live state.
    await Promise.all(list.filter((h) => h.status === 'running').map((h) => get().loadChatState(h.id)));
  },

  showHelper(helperId, focusMessageId = null) {
    set({ openHelper: helperId === null ? null : { helperId, focusMessageId } });
  },

  async openHelperMessage(parentSessionId, helperId, messageId) {
    if (get().activeSessionId !== parentSessionId) await get().selectSession(parentSessionId);
    get().showHelper(helperId, messageId);
  },
});

/** helper.updated: a helper's row, as the runtime says it is now. */
export const helperEvents: SliceEvents = (get) => (e) => {
  if (e.type !== 'helper.updated') return;
  get().patchSession(e.sessionId, (s) => ({ helpers: withHelper(s.helpers ?? [], e.helper) }));
};
