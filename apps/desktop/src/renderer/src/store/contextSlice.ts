import type { StateCreator } from 'zustand';
import { errorMessage, parseNotice, type CompactionRecord } from '@threadline/protocol';
import { call } from '../transport';
import type { AppState, ContextSlice, SliceEvents } from './types';

const errMessage = (err: unknown) => errorMessage(err);

export const createContextSlice: StateCreator<AppState, [], [], ContextSlice> = (set, get) => ({
  usage: {},
  compactions: {},
  compacting: {},
  liveCompaction: {},
  facts: {},
  candidates: {},
  cost: {},

  async loadContext(sessionId) {
    const [usage, compactions, cost] = await Promise.all([
      call('context.usage', { sessionId }).catch(() => null),
      call('compaction.list', { sessionId }).catch(() => null),
      call('usage.session', { sessionId }).catch(() => null),
      // The transcript's "N files changed" rows come with what the session shows.
      get().loadCheckpoints(sessionId),
    ]);
    const patch: Partial<AppState> = {};
    if (usage) patch.usage = { ...get().usage, [sessionId]: usage };
    if (compactions) patch.compactions = { ...get().compactions, [sessionId]: compactions };
    if (cost) patch.cost = { ...get().cost, [sessionId]: cost };
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

/**
 * The context slice's part of the event stream. Whether a compaction runs, its step and how it
 * ended come only from the typed compaction.* events, never from a notice's text.
 */
export const contextEvents: SliceEvents = (get, set) => {
  const stopped = (sessionId: string) =>
    set({
      compacting: { ...get().compacting, [sessionId]: false },
      liveCompaction: { ...get().liveCompaction, [sessionId]: null },
    });
  const withRecord = (sessionId: string, record: CompactionRecord) => {
    const list = get().compactions[sessionId] ?? [];
    set({ compactions: { ...get().compactions, [sessionId]: [...list.filter((c) => c.id !== record.id), record] } });
  };
  const reload = (sessionId: string) =>
    void get()
      .loadContext(sessionId)
      .catch(() => undefined);
  return (e) => {
    switch (e.type) {
      case 'compaction.started': {
        const { trigger, strategy, instructions, percent } = e;
        set({
          compacting: { ...get().compacting, [e.sessionId]: true },
          liveCompaction: {
            ...get().liveCompaction,
            [e.sessionId]: { trigger, strategy, instructions, percent, step: null },
          },
        });
        return;
      }
      case 'compaction.progress': {
        const live = get().liveCompaction[e.sessionId];
        if (live) set({ liveCompaction: { ...get().liveCompaction, [e.sessionId]: { ...live, step: e.step } } });
        return;
      }
      case 'compaction.finished':
        stopped(e.sessionId);
        // The record replaces the progress in place.
        withRecord(e.sessionId, e.compaction);
        reload(e.sessionId);
        return;
      case 'compaction.failed':
        stopped(e.sessionId);
        reload(e.sessionId);
        return;
      case 'compaction.undone':
        withRecord(e.sessionId, e.compaction);
        reload(e.sessionId);
        return;
      case 'usage':
        set({ usage: { ...get().usage, [e.sessionId]: e.usage } });
        return;
      case 'usage.recorded':
        set({ cost: { ...get().cost, [e.sessionId]: e.cost } });
        return;
      case 'notice':
        // A memory refresh has no typed event of its own: an open memory panel follows its notice.
        if (get().facts[e.sessionId] && parseNotice(e.message.content)?.type === 'runtime')
          void get()
            .loadMemory(e.sessionId)
            .catch(() => undefined);
        return;
      case 'session.updated':
        if (e.session === null || e.busy) return;
        // An idle session runs no compaction (also when one ended without its event: it threw).
        stopped(e.sessionId);
        // An open memory panel follows the turn even when memory notices are off.
        if (get().facts[e.sessionId])
          void get()
            .loadMemory(e.sessionId)
            .catch(() => undefined);
        return;
      case 'error':
        if (e.sessionId) stopped(e.sessionId);
        return;
    }
  };
};
