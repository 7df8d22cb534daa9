import type { StateCreator } from 'zustand';
import { call } from '../transport';
import type { AppState, ContextSlice } from './types';

const errMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));

export const createContextSlice: StateCreator<AppState, [], [], ContextSlice> = (set, get) => ({
  usage: {},
  compactions: {},
  compacting: {},
  liveCompaction: {},
  facts: {},
  candidates: {},

  async loadContext(sessionId) {
    const [usage, compactions] = await Promise.all([
      call('context.usage', { sessionId }).catch(() => null),
      call('compaction.list', { sessionId }).catch(() => null),
    ]);
    const patch: Partial<AppState> = {};
    if (usage) patch.usage = { ...get().usage, [sessionId]: usage };
    if (compactions) patch.compactions = { ...get().compactions, [sessionId]: compactions };
    set(patch);
  },

  async loadMemory(sessionId) {
    const [facts, candidates] = await Promise.all([
      call('memory.facts.list', { sessionId }).catch(() => null),
      call('memory.candidates.list', { sessionId }).catch(() => null),
    ]);
    const patch: Partial<AppState> = {};
    if (facts) patch.facts = { ...get().facts, [sessionId]: facts };
    if (candidates) patch.candidates = { ...get().candidates, [sessionId]: candidates };
    set(patch);
  },

  // Compact means compact: compaction.run, no message in the conversation. Its progress and
  // outcome arrive as compaction.* events (the divider) and, when nothing applied, a notice.
  async compact(sessionId, instructions) {
    const text = instructions?.trim() ?? '';
    set({ compacting: { ...get().compacting, [sessionId]: true } });
    try {
      await call('compaction.run', { sessionId, ...(text ? { instructions: text } : {}) });
    } catch (err) {
      get().showToast(errMessage(err));
    } finally {
      set({
        compacting: { ...get().compacting, [sessionId]: false },
        liveCompaction: { ...get().liveCompaction, [sessionId]: null },
      });
    }
    await Promise.all([get().loadContext(sessionId), get().loadMessages(sessionId)]);
  },

  async undoCompaction(sessionId) {
    try {
      await call('compaction.undo', { sessionId });
    } catch (err) {
      get().showToast(errMessage(err));
    }
    await Promise.all([get().loadContext(sessionId), get().loadMessages(sessionId)]);
  },
});
