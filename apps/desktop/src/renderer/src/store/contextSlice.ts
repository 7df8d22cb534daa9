import type { StateCreator } from 'zustand';
import { errorMessage, type CompactionRecord } from '@threadline/protocol';
import { call } from '../transport';
import type { AppState, ContextSessionState, ContextSlice, SliceEvents } from './types';

const errMessage = (err: unknown) => errorMessage(err);

export const createContextSlice: StateCreator<AppState, [], [], ContextSlice> = (_set, get) => {
  /** The context slice writes only its own fields of a session. */
  const patch = (sessionId: string, p: Partial<ContextSessionState>) => get().patchSession(sessionId, p);
  return {
    async loadContext(sessionId) {
      const [usage, compactions, cost] = await Promise.all([
        call('context.usage', { sessionId }).catch(() => null),
        call('compaction.list', { sessionId }).catch(() => null),
        call('usage.session', { sessionId }).catch(() => null),
        // The transcript's "N files changed" rows come with what the session shows.
        get().loadCheckpoints(sessionId),
        // The Memory button says how much waits in the project's inbox.
        get().loadProject(sessionId),
      ]);
      const p: Partial<ContextSessionState> = {};
      if (usage) p.usage = usage;
      if (compactions) p.compactions = compactions;
      if (cost) p.cost = cost;
      patch(sessionId, p);
    },

    async loadMemory(sessionId) {
      const [facts, candidates] = await Promise.all([
        call('memory.facts.list', { sessionId }).catch(() => null),
        call('memory.candidates.list', { sessionId }).catch(() => null),
      ]);
      const p: Partial<ContextSessionState> = {};
      if (facts) p.facts = facts;
      if (candidates) p.candidates = candidates;
      patch(sessionId, p);
    },

    async loadProject(sessionId) {
      const project = await call('project.get', { sessionId }).catch(() => null);
      if (project) patch(sessionId, { project });
    },

    // Compact means compact: compaction.run, no message in the conversation. Its progress and
    // outcome arrive as compaction.* events (the divider) and, when nothing applied, a notice;
    // the events reload what changed (once: nothing is fetched again when the run answers).
    async compact(sessionId, instructions) {
      const text = instructions?.trim() ?? '';
      patch(sessionId, { compacting: true });
      try {
        await call('compaction.run', { sessionId, ...(text ? { instructions: text } : {}) });
      } catch (err) {
        get().showToast(errMessage(err));
      } finally {
        patch(sessionId, { compacting: false, liveCompaction: null });
      }
    },

    // Undo, like compact, fetches nothing itself: its compaction.undone event marks the record
    // inactive (the hidden messages are in view again) and reloads the context once, and its
    // notice arrives as a notice event. Nothing to undo, or refused: nothing changed.
    async undoCompaction(sessionId) {
      try {
        await call('compaction.undo', { sessionId });
      } catch (err) {
        get().showToast(errMessage(err));
      }
    },

    showLiveCompaction(sessionId, compaction) {
      patch(sessionId, { liveCompaction: compaction, compacting: Boolean(compaction) });
    },
  };
};

/**
 * The context slice's part of the event stream. Whether a compaction runs, its step and how it
 * ended come only from the typed compaction.* events, and memory changes from memory.updated,
 * never from a notice's text.
 */
export const contextEvents: SliceEvents = (get) => {
  const patch = (sessionId: string, p: Partial<ContextSessionState>) => get().patchSession(sessionId, p);
  const stopped = (sessionId: string) => patch(sessionId, { compacting: false, liveCompaction: null });
  const withRecord = (sessionId: string, record: CompactionRecord) =>
    get().patchSession(sessionId, (s) => ({
      compactions: [...(s.compactions ?? []).filter((c) => c.id !== record.id), record],
    }));
  const reload = (sessionId: string) =>
    void get()
      .loadContext(sessionId)
      .catch(() => undefined);
  return (e) => {
    switch (e.type) {
      case 'compaction.started': {
        const { trigger, strategy, instructions, percent } = e;
        patch(e.sessionId, {
          compacting: true,
          liveCompaction: { trigger, strategy, instructions, percent, step: null },
        });
        return;
      }
      case 'compaction.progress': {
        const live = get().bySession[e.sessionId]?.liveCompaction;
        if (live) patch(e.sessionId, { liveCompaction: { ...live, step: e.step } });
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
        patch(e.sessionId, { usage: e.usage });
        return;
      case 'usage.recorded':
        patch(e.sessionId, { cost: e.cost });
        return;
      case 'memory.updated':
        // Only a memory panel that was opened keeps the session's facts: it shows them anew.
        if (get().bySession[e.sessionId]?.facts)
          void get()
            .loadMemory(e.sessionId)
            .catch(() => undefined);
        return;
      case 'project.updated':
        // Every open session of that project shows it anew (its inbox count, an open panel), and
        // one whose folder had no project yet (the first turn may have made the folder).
        for (const [id, st] of Object.entries(get().bySession))
          if (st.project && (st.project.project === e.project || st.project.project === null))
            void get()
              .loadProject(id)
              .catch(() => undefined);
        return;
      case 'session.updated':
        if (e.session === null || e.busy) return;
        // An idle session runs no compaction (also when one ended without its event: it threw).
        stopped(e.sessionId);
        return;
      case 'error':
        if (e.sessionId) stopped(e.sessionId);
        return;
    }
  };
};
