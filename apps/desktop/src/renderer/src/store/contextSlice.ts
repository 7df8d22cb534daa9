import type { StateCreator } from 'zustand';
import { call } from '../transport';
import type { AppState, ContextSlice } from './types';

const errMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The exact text the compact button sends (SPEC §3.5, manual trigger). */
export const COMPACT_TEXT = 'Please compact this conversation';

export const createContextSlice: StateCreator<AppState, [], [], ContextSlice> = (set, get) => ({
  usage: {},
  compactions: {},
  compacting: {},
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

  async compact(sessionId, instructions) {
    const text = instructions && instructions.trim() ? `/compact ${instructions.trim()}` : COMPACT_TEXT;
    set({ compacting: { ...get().compacting, [sessionId]: true } });
    const ok = await get().send(sessionId, text);
    if (!ok) set({ compacting: { ...get().compacting, [sessionId]: false } });
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
