import * as z from 'zod';
import { RefreshModeSchema } from './memory';
import { StrategySchema, VisibilityLevelSchema } from './settings';
import { TriggerSchema } from './compaction';

/**
 * Inline notices: user-only messages whose text is `<PREFIX> <json>`. The renderer parses them
 * into localized chips; anything that does not parse is shown as plain text.
 */
export const RUNTIME_NOTICE_PREFIX = '[CFPM_RUNTIME_V1]';
export const GATE_NOTICE_PREFIX = '[CFPM_TOOL_GATE_V1]';
export const COMPACTION_NOTICE_PREFIX = '[THREADLINE_COMPACTION_V1]';
export const ERROR_NOTICE_PREFIX = '[THREADLINE_ERROR_V1]';

/** Payloads larger than this are refused by parseNotice (a notice is a line, not a document). */
export const MAX_NOTICE_CHARS = 64 * 1024;

export const RuntimeNoticePayloadSchema = z.object({
  version: z.literal('v1'),
  verbosity: VisibilityLevelSchema,
  reason: z.string(),
  mode: RefreshModeSchema,
  acceptedCount: z.number().int().nonnegative(),
  rejectedCount: z.number().int().nonnegative(),
  prunedCount: z.number().int().nonnegative(),
  factCount: z.number().int().nonnegative(),
  rejectedReasonBreakdown: z.record(z.string(), z.number().int().nonnegative()),
  /**
   * Net change of memory's content in this refresh: facts that became active, changed, or left
   * the active set. Absent in notices written before they were counted (brief shows those as no
   * change). Evidence for a fact memory already holds is not a change.
   */
  added: z.number().int().nonnegative().optional(),
  updated: z.number().int().nonnegative().optional(),
  retired: z.number().int().nonnegative().optional(),
});
export type RuntimeNoticePayload = z.infer<typeof RuntimeNoticePayloadSchema>;

export const GateNoticePayloadSchema = z.object({
  version: z.literal('v1'),
  verbosity: VisibilityLevelSchema,
  action: z.literal('rewrite_known_folder_probe'),
  tool: z.string(),
  target: z.enum(['Desktop', 'Documents', 'Downloads']),
  path: z.string(),
  originalCommand: z.string(),
  rewrittenCommand: z.string(),
  /** The user chose to run the model's original command instead of the rewrite. */
  declined: z.boolean().optional(),
});
export type GateNoticePayload = z.infer<typeof GateNoticePayloadSchema>;

/**
 * What the pre-tool gate will change in a call, told to the user before it runs: the arguments
 * that will run instead of the model's, and why (the known folder and its path from memory).
 */
export const GateRewriteSchema = z.object({
  target: z.enum(['Desktop', 'Documents', 'Downloads']),
  path: z.string(),
  rewrittenArguments: z.string(),
});
export type GateRewrite = z.infer<typeof GateRewriteSchema>;

export const CompactionNoticeTypeSchema = z.enum([
  'auto_compacting',
  'compacted',
  'compaction_failed',
  'recovering',
  'max_attempts',
  'auto_paused',
  'undone',
  'nothing_to_compact',
  // The provider stated a smaller window than the profile's: the runtime now works with it.
  'window_learned',
  // One message that may not be hidden is itself over the window: cut it or leave it out.
  'message_too_large',
]);
export type CompactionNoticeType = z.infer<typeof CompactionNoticeTypeSchema>;

export const CompactionNoticePayloadSchema = z.object({
  version: z.literal('v1'),
  type: CompactionNoticeTypeSchema,
  trigger: TriggerSchema.optional(),
  strategy: StrategySchema.optional(),
  /** Percent of the window used, 0–100. */
  percent: z.number().optional(),
  tokensBefore: z.number().int().optional(),
  tokensAfter: z.number().int().optional(),
  attempt: z.number().int().optional(),
  maxAttempts: z.number().int().optional(),
  compactionId: z.string().optional(),
  reason: z.string().optional(),
  /** window_learned / message_too_large: the window in effect, and (learned) the profile's before. */
  window: z.number().int().optional(),
  previousWindow: z.number().int().optional(),
  /** message_too_large: which message, its size, and its place in the conversation. */
  messageId: z.string().optional(),
  messageTokens: z.number().int().optional(),
  messageRole: z.enum(['system', 'user', 'assistant', 'tool']).optional(),
});
export type CompactionNoticePayload = z.infer<typeof CompactionNoticePayloadSchema>;

/**
 * A turn that ended badly, as a user-only `error_notice`. Structured so the renderer says it in
 * the user's language; `message` is the provider's or the system's own text, shown as is.
 */
export const ErrorNoticePayloadSchema = z.object({
  version: z.literal('v1'),
  type: z.enum([
    'provider_error',
    'turn_failed',
    'max_model_calls',
    'doom_loop',
    'crash_interrupted',
    'helpers_interrupted',
  ]),
  message: z.string().max(4000).optional(),
  /** max_model_calls: the per-turn limit; doom_loop: the repeat limit. */
  limit: z.number().int().optional(),
  /** doom_loop: the tool that was called again and again. */
  tool: z.string().max(200).optional(),
  /** crash_interrupted: the command that was running when the app stopped (it may have run in part). */
  command: z.string().max(4000).optional(),
  /** helpers_interrupted: the delegate call whose helpers the app stopped, and how many. */
  toolCallId: z.string().max(200).optional(),
  count: z.number().int().nonnegative().optional(),
  /** provider_error: what kind of failure, so the notice says it in one sentence and links the fix. */
  /** `no_vision`: the message has images and the model cannot read them (`model` names it). */
  kind: z.enum(['context_length', 'rate_limit', 'server', 'network', 'auth', 'bad_request', 'no_vision']).optional(),
  /** provider_error `no_vision`: the model that cannot read images. */
  model: z.string().max(200).optional(),
  /** provider_error: the provider's own words (and HTTP status), without a sentence around them. */
  detail: z.string().max(400).optional(),
});
export type ErrorNoticePayload = z.infer<typeof ErrorNoticePayloadSchema>;

export type ParsedNotice =
  | { type: 'runtime'; payload: RuntimeNoticePayload }
  | { type: 'gate'; payload: GateNoticePayload }
  | { type: 'compaction'; payload: CompactionNoticePayload }
  | { type: 'error'; payload: ErrorNoticePayload };

const PARSERS = [
  { prefix: RUNTIME_NOTICE_PREFIX, type: 'runtime', schema: RuntimeNoticePayloadSchema },
  { prefix: GATE_NOTICE_PREFIX, type: 'gate', schema: GateNoticePayloadSchema },
  { prefix: COMPACTION_NOTICE_PREFIX, type: 'compaction', schema: CompactionNoticePayloadSchema },
  { prefix: ERROR_NOTICE_PREFIX, type: 'error', schema: ErrorNoticePayloadSchema },
] as const;

/**
 * Total: never throws. Malformed JSON, a missing field, a wrong type, a huge payload or an
 * unknown prefix all give null, and the caller shows the text as it is.
 */
export function parseNotice(text: unknown): ParsedNotice | null {
  try {
    if (typeof text !== 'string' || text.length > MAX_NOTICE_CHARS) return null;
    const trimmed = text.trim();
    for (const p of PARSERS) {
      if (!trimmed.startsWith(p.prefix)) continue;
      const raw: unknown = JSON.parse(trimmed.slice(p.prefix.length));
      const res = p.schema.safeParse(raw);
      if (!res.success) return null;
      return { type: p.type, payload: res.data } as ParsedNotice;
    }
    return null;
  } catch {
    return null;
  }
}

export function formatNotice(prefix: string, payload: object): string {
  return `${prefix} ${JSON.stringify(payload)}`;
}
