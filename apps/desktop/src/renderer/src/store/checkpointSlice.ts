import type { StateCreator } from 'zustand';
import type { Checkpoint } from '@threadline/protocol';
import { call } from '../transport';
import type { AppState, SliceEvents } from './types';
import { errorMessage } from '@threadline/protocol';

/** Checkpoints of each session's working folder: the "N files changed" rows, undo and redo. */
export interface CheckpointSlice {
  checkpoints: Record<string, Checkpoint[]>;
  /** A checkpoint whose undo or redo is in flight. */
  checkpointBusy: Record<string, boolean>;
  loadCheckpoints(sessionId: string): Promise<void>;
  /**
   * Undo (`restore`) or redo a checkpoint; a refusal is shown as a toast. Resolves with the files
   * that changed since the turn when nothing was written (the caller asks before `force`).
   */
  changeCheckpoint(checkpoint: Checkpoint, action: 'restore' | 'redo', force?: boolean): Promise<string[]>;
}

const errMessage = (err: unknown) => errorMessage(err);

const withCheckpoint = (list: Checkpoint[], c: Checkpoint): Checkpoint[] =>
  list.some((x) => x.id === c.id) ? list.map((x) => (x.id === c.id ? c : x)) : [...list, c];

export const createCheckpointSlice: StateCreator<AppState, [], [], CheckpointSlice> = (set, get) => ({
  checkpoints: {},
  checkpointBusy: {},

  async loadCheckpoints(sessionId) {
    const res = await call('checkpoints.list', { sessionId }).catch(() => null);
    if (!res) return;
    // Where git is missing the list is empty; the session's one notice says why.
    set({ checkpoints: { ...get().checkpoints, [sessionId]: res.checkpoints } });
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
      const list = get().checkpoints[next.sessionId] ?? [];
      set({ checkpoints: { ...get().checkpoints, [next.sessionId]: withCheckpoint(list, next) } });
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
export const checkpointEvents: SliceEvents = (get, set) => (e) => {
  if (e.type !== 'checkpoint.updated') return;
  const list = get().checkpoints[e.sessionId] ?? [];
  set({ checkpoints: { ...get().checkpoints, [e.sessionId]: withCheckpoint(list, e.checkpoint) } });
};
