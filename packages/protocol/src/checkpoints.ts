import * as z from 'zod';

/**
 * Checkpoints (issue 23): the working folder's state before and after a turn that changed it,
 * kept in a shadow git repository in the app's data folder. Undo puts the turn's files back as
 * they were before it; redo puts the turn's changes back.
 */
export const CheckpointFileStatusSchema = z.enum(['added', 'modified', 'deleted']);
export type CheckpointFileStatus = z.infer<typeof CheckpointFileStatusSchema>;

/** One file the turn changed, with its line counts (null for a binary file). */
export const CheckpointFileSchema = z.object({
  path: z.string(),
  status: CheckpointFileStatusSchema,
  added: z.number().int().nonnegative().nullable(),
  removed: z.number().int().nonnegative().nullable(),
});
export type CheckpointFile = z.infer<typeof CheckpointFileSchema>;

/** What a snapshot left out (said to the user): files over the size cap, what the snapshot cap cut. */
export const CheckpointSkippedSchema = z.object({
  /** Files over the per-file cap (their paths, relative to the folder; capped list). */
  tooLarge: z.array(z.string()),
  /** Files left out because the snapshot reached its total size or file count cap. */
  overBudget: z.number().int().nonnegative(),
  /** Folders that are git repositories of their own (kept out of the snapshot). */
  nestedRepos: z.array(z.string()),
  /** The caps in force when the snapshot was taken. */
  maxFileBytes: z.number().int().positive(),
  maxTotalBytes: z.number().int().positive(),
});
export type CheckpointSkipped = z.infer<typeof CheckpointSkippedSchema>;

/**
 * `applied`: the folder has the turn's changes; `undone`: they were undone (redo puts them back);
 * `overwritten`: they are no longer all in the files, because an undo or redo of another turn
 * wrote over them (redo puts them back). Worked out again after every undo and redo in the folder.
 */
export const CheckpointStateSchema = z.enum(['applied', 'undone', 'overwritten']);
export type CheckpointState = z.infer<typeof CheckpointStateSchema>;

export const CheckpointSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  /** The last message of the turn: the chat shows the checkpoint's row after it. */
  anchorId: z.string().nullable(),
  /** The user message the turn answered. */
  userMessageId: z.string().nullable(),
  folder: z.string(),
  beforeCommit: z.string(),
  afterCommit: z.string(),
  filesChanged: z.number().int().nonnegative(),
  files: z.array(CheckpointFileSchema),
  skipped: CheckpointSkippedSchema,
  state: CheckpointStateSchema,
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

/** A file's change as a unified diff (capped; `truncated` says it was cut). */
export const CheckpointFileDiffSchema = CheckpointFileSchema.extend({
  binary: z.boolean(),
  patch: z.string(),
  truncated: z.boolean(),
});
export type CheckpointFileDiff = z.infer<typeof CheckpointFileDiffSchema>;

/**
 * The meta of a `checkpoint_notice` message, for the renderer's own words: the user undid or
 * redid a checkpoint (agent-visible: the model reads the content), or, once per session, git is
 * not installed so no checkpoint is taken (user-only); or files a turn's commands left were held
 * at its end (`held`), or the user kept or discarded held files (`kept`, `discarded`), all three
 * agent-visible.
 */
export const CheckpointNoticeMetaSchema = z.object({
  action: z.enum(['undo', 'redo', 'unavailable', 'held', 'kept', 'discarded']),
  checkpointId: z.string().optional(),
  files: z.array(z.string()).default([]),
});
export type CheckpointNoticeMeta = z.infer<typeof CheckpointNoticeMetaSchema>;
