import * as z from 'zod';

export const FactCategorySchema = z.enum(['goal', 'verified_action', 'artifact', 'invalid_path', 'open_item', 'note']);
export type FactCategory = z.infer<typeof FactCategorySchema>;

export const FactStatusSchema = z.enum(['active', 'stale', 'forgotten', 'superseded']);
export type FactStatus = z.infer<typeof FactStatusSchema>;

export const FactSourceSchema = z.enum(['user', 'cfpm_auto']);
export type FactSource = z.infer<typeof FactSourceSchema>;

/** Reason codes of a candidate decision; each has an i18n key `memory.reason.<code>`. */
export const CANDIDATE_REASONS = [
  'accepted',
  'empty_content',
  'noise_error_line',
  'runtime_log_noise',
  'too_short',
  'duplicate',
  'artifact_not_path_like',
  'artifact_unhelpful',
  'artifact_marked_invalid',
  'artifact_date_only',
  'invalid_path_not_path_like',
  'open_item_unconfirmed',
  'verified_action_unconfirmed',
  'instruction_like_content',
  'too_long',
  'artifact_unconfirmed',
  'shell_startup_noise',
  'open_item_finished',
  'goal_status_sentence',
] as const;
export const CandidateReasonSchema = z.enum(CANDIDATE_REASONS);
export type CandidateReason = z.infer<typeof CandidateReasonSchema>;

export const MemoryFactSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  category: FactCategorySchema,
  content: z.string(),
  status: FactStatusSchema,
  pinned: z.boolean(),
  source: FactSourceSchema,
  confidence: z.number().min(0).max(1),
  evidenceCount: z.number().int().nonnegative(),
  lastValidatedAt: z.number().int().nullable(),
  validationCommand: z.string().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type MemoryFact = z.infer<typeof MemoryFactSchema>;

export const MemoryCandidateSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  category: FactCategorySchema,
  content: z.string(),
  source: FactSourceSchema,
  decision: z.enum(['accepted', 'rejected']),
  reason: CandidateReasonSchema,
  createdAt: z.number().int(),
});
export type MemoryCandidate = z.infer<typeof MemoryCandidateSchema>;

export const MemorySnapshotSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  compactionId: z.string().nullable(),
  content: z.string(),
  factCount: z.number().int(),
  createdAt: z.number().int(),
});
export type MemorySnapshot = z.infer<typeof MemorySnapshotSchema>;

export const RefreshModeSchema = z.enum(['noop', 'prune', 'candidate_only', 'merge', 'merge+prune']);
export type RefreshMode = z.infer<typeof RefreshModeSchema>;
