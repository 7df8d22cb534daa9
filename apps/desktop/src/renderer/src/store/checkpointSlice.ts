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
  heldBusy: {},

  async loadCheckpoints(sessionId) {
    const [res, held] = await Promise.all([
      call('checkpoints.list', { sessionId }).catch(() => null),
      call('held.list', { sessionId }).catch(() => null),
    ]);
    // Where git is missing the list is empty; the session's one notice says why.
    if (res) get().patchSession(sessionId, { checkpoints: res.checkpoints });
    if (held) get().patchSession(sessionId, { held: held.files });
  },

  async resolveHeld(sessionId, decision) {
    set({ heldBusy: { ...get().heldBusy, [sessionId]: true } });
    try {
      const out = await call('held.resolve', { sessionId, decision });
      get().patchSession(sessionId, { held: out.files });
      return out.failed;
    } catch (err) {
      get().showToast(errMessage(err));
      return [];
    } finally {
      set({ heldBusy: { ...get().heldBusy, [sessionId]: false } });
    }
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

/**
 * checkpoint.updated: a turn's checkpoint was taken, undone or redone (by this window or another);
 * held.updated: the session's held files changed.
 */
export const checkpointEvents: SliceEvents = (get) => (e) => {
  if (e.type === 'held.updated') get().patchSession(e.sessionId, { held: e.files });
  if (e.type !== 'checkpoint.updated') return;
  get().patchSession(e.sessionId, (s) => ({ checkpoints: withCheckpoint(s.checkpoints ?? [], e.checkpoint) }));
};
