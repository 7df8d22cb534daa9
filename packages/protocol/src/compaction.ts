import * as z from 'zod';
import { StrategySchema } from './settings';

export const TriggerSchema = z.enum(['auto', 'manual', 'recovery']);
export type Trigger = z.infer<typeof TriggerSchema>;

/** A compaction's result statistics, shared by every strategy. */
export const CompactionStatsSchema = z.object({
  originalCount: z.number().int(),
  compactedCount: z.number().int(),
  removed: z.number().int(),
  reductionPercent: z.number(),
  originalTokens: z.number().int(),
  compactedTokens: z.number().int(),
  tokensSaved: z.number().int(),
});
export type CompactionStats = z.infer<typeof CompactionStatsSchema>;

export const StepReportSchema = z
  .object({
    name: z.string(),
    tokensBefore: z.number().int(),
    tokensAfter: z.number().int(),
    hidden: z.number().int().optional(),
    inserted: z.number().int().optional(),
    skipped: z.string().optional(),
  })
  .catchall(z.unknown());
export type StepReport = z.infer<typeof StepReportSchema>;

/** A compaction as stored: history is never edited; the record says what the agent no longer sees. */
export const CompactionRecordSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  strategy: StrategySchema,
  trigger: TriggerSchema,
  steps: z.array(StepReportSchema),
  hiddenIds: z.array(z.string()),
  insertedIds: z.array(z.string()),
  tokensBefore: z.number().int(),
  tokensAfter: z.number().int(),
  summary: z.string().nullable(),
  instructions: z.string().nullable(),
  /** seq of the last history message this compaction saw: the divider goes after it. */
  afterSeq: z.number().int(),
  active: z.boolean(),
  createdAt: z.number().int(),
  undoneAt: z.number().int().nullable(),
});
export type CompactionRecord = z.infer<typeof CompactionRecordSchema>;

export const ContextUsageSchema = z.object({
  /** What the provider would count for the next request: view + tool definitions, calibrated. */
  total: z.number().int(),
  window: z.number().int(),
  /** Percent of the window used, 0–100 (not a fraction). */
  percent: z.number(),
  /** The auto-compact threshold as a fraction 0–1 (≤0 or ≥1: auto compaction off). */
  threshold: z.number(),
  breakdown: z.object({
    system: z.number().int(),
    memory: z.number().int(),
    summaries: z.number().int(),
    messages: z.number().int(),
    toolOutputs: z.number().int(),
    /** The tool definitions every request carries. */
    tools: z.number().int(),
    /**
     * The instructions in the system prompt (project file, custom, the session's own); `system`
     * is the rest of it. Absent: none.
     */
    instructions: z.number().int().optional(),
    /** The project memory block in the system prompt (also taken out of `system`). Absent: none. */
    projectMemory: z.number().int().optional(),
  }),
  /** The provider's last reported prompt tokens, for calibration (debug). */
  providerPromptTokens: z.number().int().nullable(),
  /** Provider tokens per estimated token (1 until the provider reported usage); the breakdown is in estimated tokens. */
  calibration: z.number(),
  /** The model's view holds something to compact (whether the session is busy is session.updated's). */
  canCompact: z.boolean(),
  autoPaused: z.boolean(),
  /** MCP servers whose tool definitions are in `breakdown.tools` (absent: none). */
  toolServers: z.number().int().optional(),
  /** The tool definitions alone take more than `settings.mcp.toolShareWarning` of the window. */
  toolsOverShare: z.boolean().optional(),
});
export type ContextUsage = z.infer<typeof ContextUsageSchema>;

export const CompactionPreviewSchema = z.object({
  strategy: StrategySchema,
  ok: z.boolean(),
  reason: z.string().nullable(),
  hiddenIds: z.array(z.string()),
  inserted: z.array(z.object({ kind: z.string(), content: z.string() })),
  tokensBefore: z.number().int(),
  tokensAfter: z.number().int(),
  steps: z.array(StepReportSchema),
});
export type CompactionPreview = z.infer<typeof CompactionPreviewSchema>;
