import * as z from 'zod';
import { ATTACHMENT_LIMITS } from '../attachments';
import { TriggerSchema } from '../compaction';
import { ToolCallSchema } from '../messages';
import { GateRewriteSchema } from '../notices';
import { RememberSchema, RuleNoteSchema, RuleOptionsSchema } from '../rules';
import { StrategySchema } from '../settings';
import { id, sessionRef, type RouteMap } from './define';
import { HeldReasonSchema } from '../held';
import { ToolSandboxSchema } from './sandbox';

/**
 * Why a credential place or a protected path asks: a code the approval card words (en, zh-CN).
 * Credential places: a store of the home folder (~/.ssh, gh's hosts.yml…), a `.env*` file or
 * `.envs/` folder, a key or certificate file, the app's own process environment (/proc).
 * Protected paths (a write would make code run later): the codes of held files (held.ts), of
 * which the file tools ask for the rules of packages/agent/src/workspace/protected.ts that ask.
 */
export const AccessReasonSchema = z.enum([
  'credential_store',
  'env_file',
  'key_file',
  'process_env',
  ...HeldReasonSchema.options,
]);
export type AccessReason = z.infer<typeof AccessReasonSchema>;

/**
 * Why a file tool call asks although its tool would run on its own: the path (resolved: `~`,
 * `..` and symlinks followed) is outside the session's folder, a place credentials live, or a
 * protected path the call would write (one that makes code run later).
 */
export const ToolAccessSchema = z.object({
  path: z.string(),
  zone: z.enum(['outside', 'credential', 'protected']),
  reason: AccessReasonSchema.optional(),
});
export type ToolAccess = z.infer<typeof ToolAccessSchema>;

/**
 * A file change as the user sees it on a card (edit_file, write_file): unified-diff hunks
 * (`@@` headers, then `+`/`-`/` ` lines), capped; `moreLines` says how many lines were left out.
 * On a pending call it is the change the call would make (computed when it asks); in a tool
 * result's meta (`meta.diff`) the change it made.
 */
export const ToolDiffSchema = z.object({
  path: z.string(),
  /** The file did not exist before. */
  created: z.boolean(),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  patch: z.string(),
  moreLines: z.number().int().nonnegative(),
});
export type ToolDiff = z.infer<typeof ToolDiffSchema>;

/** A tool call of the running step, requested but not committed to history yet. */
export const PendingToolCallSchema = z.object({
  toolCall: ToolCallSchema,
  /** The assistant message the call belongs to (committed with its results). */
  messageId: z.string(),
  needsApproval: z.boolean(),
  status: z.enum(['waiting', 'running']),
  /** Set when the call touches a path that made it ask (the approval card shows it). */
  access: ToolAccessSchema.optional(),
  /** The gate's rewrite of this call, when it made one (see the `tool.requested` event). */
  gate: GateRewriteSchema.optional(),
  /** Set when a `sandboxed` shell call asks: it would run outside the sandbox (see `tool.requested`). */
  sandbox: ToolSandboxSchema.optional(),
  /** The change a file tool would make, shown before the user approves it. */
  diff: ToolDiffSchema.optional(),
  /** When it asks: the rules its card can save (see `tool.requested`). */
  rules: RuleOptionsSchema.optional(),
  /** The rule that decided it: an `ask` rule on a waiting call. */
  rule: RuleNoteSchema.optional(),
});
export type PendingToolCall = z.infer<typeof PendingToolCallSchema>;

export const RunningCompactionSchema = z.object({
  trigger: TriggerSchema,
  strategy: StrategySchema,
  instructions: z.string().nullable(),
  percent: z.number().nullable(),
  step: z.string().nullable(),
});
export type RunningCompaction = z.infer<typeof RunningCompactionSchema>;

/** The live state of a session's turn, which history alone cannot tell. */
export const ChatStateSchema = z.object({
  busy: z.boolean(),
  /** Text streamed so far in the current step, not yet committed. */
  partial: z.object({ messageId: z.string(), text: z.string() }).nullable(),
  pending: z.array(PendingToolCallSchema),
  /** The compaction running now, as the `compaction.started`/`progress` events told it; absent when none. */
  compaction: RunningCompactionSchema.optional(),
});
export type ChatState = z.infer<typeof ChatStateSchema>;

/** What every route that starts a turn answers once the user message is stored. */
export const TurnAcceptedSchema = z.object({ accepted: z.literal(true), userMessageId: z.string() });

/**
 * Characters chat.send takes. A longer paste is cut by the renderer before it is sent
 * (head and tail, a marker, one sentence to the user); browser mode's body limit fits this.
 */
export const CHAT_TEXT_MAX = 4_000_000;
/**
 * Characters a user message keeps: beyond, the runtime cuts it (head and tail, a marker) and keeps
 * the whole text as the message's full output, which the agent pages with read_tool_output.
 */
export const MESSAGE_TEXT_KEEP = 1_000_000;

/** Turns: send, cancel, approve, what runs now. */
export const chatRoutes = {
  'chat.send': {
    /** `attachments`: ids from attachments.add (images go to the model as image parts, texts as text). */
    input: z
      .object({
        sessionId: id,
        text: z.string().max(CHAT_TEXT_MAX),
        attachments: z.array(id).max(ATTACHMENT_LIMITS.perMessage).optional(),
      })
      .refine((v) => v.text.trim().length > 0 || (v.attachments?.length ?? 0) > 0, {
        message: 'A message needs text or an attachment.',
        path: ['text'],
      }),
    output: TurnAcceptedSchema,
  },
  'chat.cancel': { input: sessionRef, output: z.object({ cancelled: z.boolean() }) },
  /**
   * `remember`: rules made from the call (the card's `rules` options, possibly narrowed or edited),
   * saved with the answer as their decision, in the scope chosen; they decide later calls.
   */
  'chat.approve': {
    input: z.object({
      sessionId: id,
      toolCallId: id,
      decision: z.enum(['approve', 'deny']),
      remember: RememberSchema.optional(),
      /** Approve the model's own arguments instead of the gate's rewrite of them. */
      useOriginal: z.boolean().optional(),
      /** With `deny`: the user's reason, which the model reads as the call's result. */
      reason: z.string().trim().max(2000).optional(),
    }),
    output: z.object({ ok: z.literal(true) }),
  },
  /** What is running now: for a renderer that (re)loads while a turn runs or waits for approval. */
  'chat.state': { input: sessionRef, output: ChatStateSchema },
} satisfies RouteMap;
