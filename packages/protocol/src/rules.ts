import * as z from 'zod';

/**
 * Permission rules: what the user said once and wants to hold (docs/api.md "Rules"). A rule is
 * structured, never a pattern over the call's text: a command rule names a program and the plain
 * words that must follow it, a path rule a place compared by where a path really leads, an MCP
 * rule a server and tool. Stored by the app (never in a file the agent could write); the runtime's
 * `decide` (packages/agent/src/rules/decide.ts) is the one place that applies them.
 */
export const RuleDecisionSchema = z.enum(['allow', 'ask', 'deny']);
export type RuleDecision = z.infer<typeof RuleDecisionSchema>;

const toolName = z.string().min(1).max(200);
/** An absolute path (POSIX or Windows), as stored: a folder is resolved (symlinks followed) when saved. */
const absolute = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), { message: 'must be an absolute path' });

/**
 * One word of a command rule: plain characters only (letters, digits and `_-./:@%+=,`), so what
 * the card shows is all there is. A command matches only where the same word stands unquoted.
 */
export const RULE_WORD = /^[\p{L}\p{N}_\-./:@%+=,]+$/u;
const word = z.string().min(1).max(500).regex(RULE_WORD, { message: 'a rule word is plain characters only' });

/**
 * Where a path rule holds, compared with where the call's path really leads (symlinks followed):
 * `any` every path; `inside`/`outside` the session's working folder; `folder` a folder and
 * everything under it; `glob` a picomatch pattern over the absolute path.
 */
export const PathScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('any') }),
  z.object({ kind: z.literal('inside') }),
  z.object({ kind: z.literal('outside') }),
  z.object({ kind: z.literal('folder'), path: absolute }),
  z.object({ kind: z.literal('glob'), pattern: absolute }),
]);
export type PathScope = z.infer<typeof PathScopeSchema>;

/**
 * What a rule matches.
 * - `command` (shell): the program and the words after it (`words`, program first; empty: any
 *   command), exactly those (`more: false`) or followed by anything (`more: true`). `sandbox`:
 *   `only` holds while the command would run inside the OS sandbox, `also_outside` outside it too.
 * - `path` (file tools): the tool on paths in `scope`.
 * - `mcp`: a server's tool by its own names (`tool: null`: every tool of the server).
 * - `tool`: every call of a tool that has neither commands nor paths.
 */
export const RuleMatchSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('command'),
    tool: toolName,
    words: z.array(word).max(32),
    more: z.boolean(),
    sandbox: z.enum(['only', 'also_outside']),
  }),
  z.object({ kind: z.literal('path'), tool: toolName, scope: PathScopeSchema }),
  z.object({ kind: z.literal('mcp'), server: z.string().min(1).max(200), tool: z.string().min(1).max(200).nullable() }),
  z.object({ kind: z.literal('tool'), tool: toolName }),
]);
export type RuleMatch = z.infer<typeof RuleMatchSchema>;

/** Where a rule holds: one session, sessions working in a folder (or below it), or every session. */
export const RuleScopeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('session'), sessionId: z.string().min(1).max(200) }),
  z.object({ kind: z.literal('folder'), folder: absolute }),
  z.object({ kind: z.literal('everywhere') }),
]);
export type RuleScope = z.infer<typeof RuleScopeSchema>;
export type RuleScopeKind = RuleScope['kind'];

/** Where a rule came from: a card (which session and call), Settings, or a per-session "always" of an older version. */
export const RuleOriginSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('card'),
    sessionId: z.string(),
    sessionTitle: z.string(),
    toolCallId: z.string(),
  }),
  z.object({ kind: z.literal('settings') }),
  z.object({ kind: z.literal('migrated'), sessionId: z.string() }),
]);
export type RuleOrigin = z.infer<typeof RuleOriginSchema>;

/** With `deny`: what the model is told (the user's words). */
export const RuleReasonSchema = z.string().trim().min(1).max(2000).nullable();

export const RuleSchema = z.object({
  id: z.string(),
  decision: RuleDecisionSchema,
  match: RuleMatchSchema,
  scope: RuleScopeSchema,
  reason: RuleReasonSchema,
  origin: RuleOriginSchema,
  createdAt: z.number(),
  updatedAt: z.number(),
  /** How many tool calls it decided, and when it last did (null: never). */
  hits: z.number().int().nonnegative(),
  lastHitAt: z.number().nullable(),
});
export type Rule = z.infer<typeof RuleSchema>;

/** A rule as rules.save takes it: without `id` a new one (made in Settings), with one an edit. */
export const RuleDraftSchema = z.object({
  id: z.string().min(1).max(200).optional(),
  decision: RuleDecisionSchema,
  match: RuleMatchSchema,
  scope: RuleScopeSchema,
  reason: RuleReasonSchema.optional(),
});
export type RuleDraft = z.infer<typeof RuleDraftSchema>;

/**
 * Why the card of a call offers no rule that allows it: a floor no allow rule lifts (a protected
 * path, a credential place, leaving the sandbox), an `ask` rule that matches it, or a command
 * Threadline cannot read exactly (expansions, substitutions, here-documents, hidden characters…),
 * or one that writes to a file or sets variables (`redirect`).
 */
export const RuleBlockSchema = z.enum([
  'protected',
  'credential',
  'leave_sandbox',
  'ask_rule',
  'unreadable',
  'redirect',
]);
export type RuleBlock = z.infer<typeof RuleBlockSchema>;

/**
 * What the approval card of a call can save, built by the runtime from the call: one entry per
 * part (a command of a compound line that no rule allows yet; one for other tools), each with the
 * matches it may choose from, narrowest first, and the one offered first.
 */
export const RuleOptionsSchema = z.object({
  parts: z.array(
    z.object({ options: z.array(RuleMatchSchema).min(1).max(40), preferred: z.number().int().nonnegative() }),
  ),
  /** Set when no rule may allow the call (the card still offers "Deny …"). */
  blocked: RuleBlockSchema.optional(),
  /** The session's working folder, for "… in this folder". */
  folder: z.string(),
});
export type RuleOptions = z.infer<typeof RuleOptionsSchema>;

/**
 * Which rule decided a call, for its card: on `tool.requested` (an `ask` rule) and in the tool
 * result's `meta.rule` (the rule that allowed or denied it; several when each part of a compound
 * command was allowed by another).
 */
export const RuleNoteSchema = z.object({
  decision: RuleDecisionSchema,
  rules: z.array(RuleSchema.pick({ id: true, match: true, scope: true, reason: true })),
});
export type RuleNote = z.infer<typeof RuleNoteSchema>;

/** "Remember" on a card: rules made from the call's parts, in one scope, with the card's answer as decision. */
export const RememberSchema = z.object({
  scope: z.enum(['session', 'folder', 'everywhere']),
  matches: z.array(RuleMatchSchema).min(1).max(16),
});
export type Remember = z.infer<typeof RememberSchema>;
