import { z } from 'zod';
import {
  ApprovalPolicySchema,
  SettingsPatchSchema,
  WorkingFolderSchema,
  type ApprovalPolicy,
  type Settings,
  type Strategy,
} from './settings';
import type { StoredMessage, ToolCall } from './messages';
import type { SearchHit } from './search';
import type { CompactionPreview, CompactionRecord, ContextUsage, Trigger } from './compaction';
import { FactCategorySchema, FactStatusSchema, type MemoryCandidate, type MemoryFact } from './memory';
import { ProviderUpsertSchema, type ProviderProfile } from './providers';
import type { GateRewrite } from './notices';
import { McpImportSchema, McpServerUpsertSchema, type McpServerInfo } from './mcp';

const id = z.string().min(1).max(200);
const sessionRef = z.object({ sessionId: id });

export interface SessionSummary {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  /** The folder the agent works in (absolute, resolved); file tools run there without asking. */
  workingFolder: string;
}

/**
 * Why a file tool call asks although its tool would run on its own: the path (resolved: `~`,
 * `..` and symlinks followed) is outside the session's folder, or a place credentials live.
 */
export interface ToolAccess {
  path: string;
  zone: 'outside' | 'credential';
}

/** A tool call of the running step, requested but not committed to history yet. */
export interface PendingToolCall {
  toolCall: ToolCall;
  /** The assistant message the call belongs to (committed with its results). */
  messageId: string;
  needsApproval: boolean;
  status: 'waiting' | 'running';
  /** Set when the call touches a path that made it ask (the approval card shows it). */
  access?: ToolAccess;
  /** The gate's rewrite of this call, when it made one (see the `tool.requested` event). */
  gate?: GateRewrite;
}

/** The live state of a session's turn, which history alone cannot tell. */
export interface ChatState {
  busy: boolean;
  /** Text streamed so far in the current step, not yet committed. */
  partial: { messageId: string; text: string } | null;
  pending: PendingToolCall[];
  /** The compaction running now, as the `compaction.started`/`progress` events told it; absent when none. */
  compaction?: RunningCompaction;
}

export interface RunningCompaction {
  trigger: Trigger;
  strategy: Strategy;
  instructions: string | null;
  percent: number | null;
  step: string | null;
}

/** Input schemas of every AppApi route (SPEC §7.1). The same names are used over IPC and HTTP. */
export const RouteInputs = {
  'sessions.list': z.object({}).default({}),
  /** `workingFolder`: absolute or `~/…`; default: Settings → agent.defaultWorkingFolder, else ~/Threadline. */
  'sessions.create': z
    .object({ title: z.string().trim().max(200).optional(), workingFolder: WorkingFolderSchema.optional() })
    .default({}),
  'sessions.rename': z.object({ id, title: z.string().trim().min(1).max(200) }),
  'sessions.delete': z.object({ id }),
  /** `branches`: the branch shown (default) or every branch of the session. */
  'sessions.export': z.object({
    id,
    format: z.enum(['markdown', 'json']),
    branches: z.enum(['active', 'all']).optional(),
  }),
  /** Moves a session to another working folder (checked like sessions.create's). */
  'sessions.update': z.object({ id, workingFolder: WorkingFolderSchema }),
  'messages.list': sessionRef,
  /** The full text of a truncated tool output (messages.list leaves full outputs out). */
  'messages.fullOutput': z.object({ id }),
  'chat.send': z.object({ sessionId: id, text: z.string().min(1).max(1_000_000) }),
  'chat.cancel': sessionRef,
  /** `remember`: the same answer for this tool for the rest of the session (a per-session policy). */
  'chat.approve': z.object({
    sessionId: id,
    toolCallId: id,
    decision: z.enum(['approve', 'deny']),
    remember: z.boolean().optional(),
    /** Approve the model's own arguments instead of the gate's rewrite of them. */
    useOriginal: z.boolean().optional(),
  }),
  /** What is running now: for a renderer that (re)loads while a turn runs or waits for approval. */
  'chat.state': sessionRef,
  'compaction.run': z.object({ sessionId: id, instructions: z.string().max(4000).optional() }),
  'compaction.preview': sessionRef,
  'compaction.undo': sessionRef,
  'compaction.list': sessionRef,
  'context.usage': sessionRef,
  /** Per-session approval policies by tool name (SPEC §7: the policy is per session). */
  'approvals.list': sessionRef,
  /** `policy: null` goes back to the app-wide setting for that tool. */
  'approvals.set': z.object({
    sessionId: id,
    toolName: z.string().min(1).max(200),
    policy: ApprovalPolicySchema.nullable(),
  }),
  // The active branch's facts (plus user-made and pinned); allBranches: every fact of the session.
  'memory.facts.list': sessionRef.extend({ allBranches: z.boolean().optional() }),
  'memory.facts.upsert': z.object({
    sessionId: id,
    id: id.optional(),
    category: FactCategorySchema,
    content: z.string().trim().min(1).max(2000),
    pinned: z.boolean().optional(),
  }),
  'memory.facts.setStatus': z.object({ id, status: FactStatusSchema, pinned: z.boolean().optional() }),
  'memory.candidates.list': sessionRef,
  'settings.get': z.object({}).default({}),
  'settings.set': z.object({ patch: SettingsPatchSchema }),
  'providers.list': z.object({}).default({}),
  'providers.upsert': ProviderUpsertSchema,
  'providers.setActive': z.object({ id }),
  /** A saved profile by id, or the form's unsaved draft (its key, or the stored one of `draft.id`). */
  'providers.test': z.union([z.object({ id }), z.object({ draft: ProviderUpsertSchema })]),
  /** Sends `text` as a new version of an earlier user message: a new branch from that point. */
  'chat.edit': z.object({ sessionId: id, messageId: id, text: z.string().min(1).max(1_000_000) }),
  /** A new version of the last reply: the last request of the branch is answered again. */
  'chat.regenerate': sessionRef,
  /** After an error: the same request again (the same message, never a copy), on a new reply version. */
  'chat.retry': sessionRef,
  /** Shows the branch through `messageId` (one of a message's versions), down to its newest message. */
  'branches.switch': z.object({ sessionId: id, messageId: id }),
  /** Full-text search over the user's and the assistant's messages of every session. */
  'search.messages': z.object({
    query: z.string().trim().min(1).max(500),
    limit: z.number().int().min(1).max(200).optional(),
  }),
  /** MCP servers; with `sessionId`, each says whether it is switched off for that session. */
  'mcp.servers.list': z.object({ sessionId: id.optional() }).default({}),
  'mcp.servers.upsert': McpServerUpsertSchema,
  'mcp.servers.remove': z.object({ id }),
  'mcp.servers.restart': z.object({ id }),
  /** Claude desktop's `{"mcpServers": {…}}` JSON, pasted or read from a file. */
  'mcp.servers.import': McpImportSchema,
  /** Servers left out of one session's turns (their tool definitions cost too much of its window). */
  'mcp.servers.sessionDisable': z.object({ sessionId: id, ids: z.array(id).max(200), disabled: z.boolean() }),
} as const;

export type RouteName = keyof typeof RouteInputs;
export const ROUTE_NAMES = Object.keys(RouteInputs) as RouteName[];
export type RouteInput<R extends RouteName> = z.input<(typeof RouteInputs)[R]>;
export type RouteParsedInput<R extends RouteName> = z.output<(typeof RouteInputs)[R]>;

export interface RouteOutputs {
  'sessions.list': SessionSummary[];
  'sessions.create': SessionSummary;
  'sessions.rename': SessionSummary;
  'sessions.delete': { deleted: true };
  'sessions.export': { filename: string; mime: string; content: string };
  'sessions.update': SessionSummary;
  'messages.list': StoredMessage[];
  'messages.fullOutput': { text: string | null };
  'chat.send': { accepted: true; userMessageId: string };
  'chat.cancel': { cancelled: boolean };
  'chat.approve': { ok: true };
  'chat.state': ChatState;
  'compaction.run': { ok: boolean; compaction: CompactionRecord | null; reason: string | null };
  'compaction.preview': CompactionPreview;
  'compaction.undo': { undone: CompactionRecord | null };
  'compaction.list': CompactionRecord[];
  'context.usage': ContextUsage;
  'approvals.list': Record<string, ApprovalPolicy>;
  'approvals.set': Record<string, ApprovalPolicy>;
  'memory.facts.list': MemoryFact[];
  'memory.facts.upsert': MemoryFact;
  'memory.facts.setStatus': MemoryFact;
  'memory.candidates.list': MemoryCandidate[];
  'settings.get': Settings;
  'settings.set': Settings;
  'providers.list': ProviderProfile[];
  'providers.upsert': ProviderProfile;
  'providers.setActive': ProviderProfile;
  /** `problem`: what to fix, beside which field (`missing_key`, `auth`: the key; `unreachable`: the address; `unknown_model`: the model). */
  'providers.test': {
    ok: boolean;
    message: string;
    latencyMs: number | null;
    problem?: 'missing_key' | 'auth' | 'unreachable' | 'unknown_model' | 'other';
  };
  'chat.edit': { accepted: true; userMessageId: string };
  'chat.regenerate': { accepted: true; userMessageId: string };
  'chat.retry': { accepted: true; userMessageId: string };
  /** The active branch after the switch, as messages.list returns it. */
  'branches.switch': StoredMessage[];
  'search.messages': SearchHit[];
  'mcp.servers.list': { servers: McpServerInfo[] };
  'mcp.servers.upsert': { server: McpServerInfo };
  'mcp.servers.remove': { removed: true };
  'mcp.servers.restart': { server: McpServerInfo };
  'mcp.servers.import': { servers: McpServerInfo[]; skipped: { name: string; reason: string }[] };
  'mcp.servers.sessionDisable': { disabled: string[] };
}
export type RouteOutput<R extends RouteName> = RouteOutputs[R];

/** The one API both shells expose: IPC in Electron, HTTP in browser mode. */
export type AppApi = { [R in RouteName]: (input: RouteParsedInput<R>) => Promise<RouteOutput<R>> };

export const ErrorCodeSchema = z.enum([
  'invalid_input',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'busy',
  'provider_error',
  'internal',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export type RpcResult<T> = { ok: true; data: T } | { ok: false; error: { code: ErrorCode; message: string } };

/** An error an AppApi implementation throws on purpose; the router turns it into a result. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}
