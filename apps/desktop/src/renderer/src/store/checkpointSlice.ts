import type { StateCreator } from 'zustand';
import type { Checkpoint } from '@threadline/protocol';
import { call } from '../transport';
import type { AppState, CheckpointSlice, SliceEvents } from './types';
import { errorMessage } from '@threadline/protocol';

const errMessage = (err: unknown) => errorMessage(err);

const withCheckpoint = (list: Checkpoint[], c: Checkpoint): Checkpoint[] =>
  list.some((x) => x.id === c.id) ? list.map((x) => (x.id === c.id ? c : x)) : [...list, c];

export const createCheckpointSlice: StateCreator<AppState, [], [], CheckpointSlice> = (set, get) => ({
  checkpointBusy: {},

  async loadCheckpoints(sessionId) {
    const res = await call('checkpoints.list', { sessionId }).catch(() => null);
    if (!res) return;
    // Where git is missing the list is empty; the session's one notice says why.
    get().patchSession(sessionId, { checkpoints: res.checkpoints });
  },

  async changeCheckpoint(checkpoint, action, force = false) {
    set({ checkpointBusy: { ...get().checkpointBusy, [checkpoint.id]: true } });
    try {
      const out = await call(action === 'restore' ? 'checkpoints.restore' : 'checkpoints.redo', {
        checkpointId: checkpoint.id,
        force,
      });
      if (!out.applied) return out.changedSince;
      const next = out.checkpoint;
      get().patchSession(next.sessionId, (s) => ({ checkpoints: withCheckpoint(s.checkpoints ?? [], next) }));
      return [];
    } catch (err) {
      get().showToast(errMessage(err));
      return [];
    } finally {
      set({ checkpointBusy: { ...get().checkpointBusy, [checkpoint.id]: false } });
    }
  },
});

/** checkpoint.updated: a turn's checkpoint was taken, undone or redone (by this window or another). */
export const checkpointEvents: SliceEvents = (get) => (e) => {
  if (e.type !== 'checkpoint.updated') return;
  get().patchSession(e.sessionId, (s) => ({ checkpoints: withCheckpoint(s.checkpoints ?? [], e.checkpoint) }));
};
