import * as z from 'zod';
import { UsageTotalsSchema } from './usage';

/**
 * Helpers (the `delegate` tool): tasks the model hands to agents with a context of their own.
 * Each helper is a session of its own, linked to its parent's call and hidden from the sessions
 * list; its final answer comes back as its report (docs/architecture.md, "Helpers").
 */

/** The roles every session has: `explore` (read-only tools, the default) and `work` (the parent's tools). */
export const BUILTIN_HELPER_ROLES = ['explore', 'work'] as const;
export type BuiltinHelperRole = (typeof BUILTIN_HELPER_ROLES)[number];

/** At most this many tasks in one delegate call. */
export const HELPER_TASKS_MAX = 5;

/** A role's name: a short slug the model writes (`reviewer`, `test-runner`). */
export const HelperRoleNameSchema = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a short name: lowercase letters, digits, - or _')
  .refine((n) => !(BUILTIN_HELPER_ROLES as readonly string[]).includes(n), {
    message: 'explore and work are built in',
  });

/** A role the user defines in Settings: what the model reads of it, its tools, its model. */
export const HelperRoleSchema = z.object({
  name: HelperRoleNameSchema,
  /** What the model is told the role is for (the system prompt lists it). */
  description: z.string().trim().min(1).max(500),
  /** Tool names a helper of this role gets, of the parent's (`delegate` never). */
  tools: z.array(z.string().trim().min(1).max(200)).min(1).max(50),
  /** The model its requests go to (of the session's provider); null: the session's model. */
  model: z.string().trim().min(1).max(200).nullable().default(null),
});
export type HelperRole = z.infer<typeof HelperRoleSchema>;

export const HelperStatusSchema = z.enum([
  /** Waiting for a place: more tasks than the concurrency setting allows at once. */
  'queued',
  'running',
  /** It gave its final answer. */
  'done',
  /** The user stopped it (Stop). */
  'stopped',
  /** It ended without an answer (a provider error, the model-call limit, the same call repeated). */
  'failed',
  /** The app stopped while it ran (a crash): what it stored is kept. */
  'interrupted',
]);
export type HelperStatus = z.infer<typeof HelperStatusSchema>;

/** One helper as its row in the parent's chat shows it. */
export const HelperSummarySchema = z.object({
  /** The helper's own session (its messages: messages.list, sessions.export with this id). */
  id: z.string(),
  parentSessionId: z.string(),
  /** The parent's `delegate` call it belongs to. */
  toolCallId: z.string(),
  /** Its place among the call's tasks (0-based). */
  index: z.number().int().nonnegative(),
  task: z.string(),
  role: z.string(),
  model: z.string(),
  /** The tools it was given. */
  tools: z.array(z.string()),
  status: HelperStatusSchema,
  /** The tools it called, by name, with how many times (in the order first called). */
  toolCalls: z.array(z.object({ name: z.string(), count: z.number().int().positive() })),
  /** Its model calls: tokens used and cost. */
  usage: UsageTotalsSchema,
  /** Tokens of its report in the parent's context (null until it ended). */
  returnedTokens: z.number().int().nonnegative().nullable(),
  /** Its final answer (null until it gave one). */
  report: z.string().nullable(),
  /** Why it failed, in the runtime's words (null unless failed). */
  error: z.string().nullable(),
  createdAt: z.number().int(),
  endedAt: z.number().int().nullable(),
});
export type HelperSummary = z.infer<typeof HelperSummarySchema>;
