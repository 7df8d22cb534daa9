import type { Checkpoint, CheckpointFile, CheckpointSkipped, CheckpointState } from '@threadline/protocol';

/** A checkpoint as the runtime records it at the end of a turn. */
export interface NewCheckpoint {
  id?: string;
  sessionId: string;
  anchorId: string | null;
  userMessageId: string | null;
  folder: string;
  beforeCommit: string;
  afterCommit: string;
  files: CheckpointFile[];
  skipped: CheckpointSkipped;
}

/** Checkpoints of the working folder (issue 23): one row per turn that changed files. */
export interface CheckpointsRepo {
  add(c: NewCheckpoint): Checkpoint;
  get(id: string): Checkpoint | null;
  /** The session's checkpoints, oldest first. */
  list(sessionId: string): Checkpoint[];
  /** Every session's checkpoints of one working folder, oldest first. */
  listFolder(folder: string): Checkpoint[];
  setState(id: string, state: CheckpointState): Checkpoint;
}
