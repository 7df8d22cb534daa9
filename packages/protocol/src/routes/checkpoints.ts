import * as z from 'zod';
import { CheckpointFileDiffSchema, CheckpointSchema } from '../checkpoints';
import { id, sessionRef, type RouteMap } from './define';

const checkpointRef = z.object({ checkpointId: id });
const changeInput = z.object({ checkpointId: id, force: z.boolean().default(false) });
const changeOutput = z.object({
  applied: z.boolean(),
  checkpoint: CheckpointSchema,
  changedSince: z.array(z.string()),
});

/** Checkpoints of the working folder: what each turn changed, undo and redo (issue 23). */
export const checkpointRoutes = {
  /**
   * The session's checkpoints, oldest first. `available: false` when git is not installed
   * (then no checkpoint is taken and the list is empty).
   */
  'checkpoints.list': {
    input: sessionRef,
    output: z.object({ available: z.boolean(), checkpoints: z.array(CheckpointSchema) }),
  },
  /** Each file the turn changed, as a unified diff from before the turn to after it. */
  'checkpoints.diff': {
    input: checkpointRef,
    output: z.object({ checkpoint: CheckpointSchema, files: z.array(CheckpointFileDiffSchema) }),
  },
  /**
   * Undo: the turn's files as they were before it (created removed, deleted back, edited
   * restored). When some of them changed since the turn, nothing is written unless `force`:
   * `applied: false` and `changedSince` names them.
   */
  'checkpoints.restore': { input: changeInput, output: changeOutput },
  /** Redo: the turn's files as the turn left them (same rule for files changed since the undo). */
  'checkpoints.redo': { input: changeInput, output: changeOutput },
} satisfies RouteMap;
