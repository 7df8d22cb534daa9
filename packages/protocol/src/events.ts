import * as z from 'zod';
import type { StoredMessage, ToolCall } from './messages';
import type { CompactionRecord, ContextUsage, Trigger } from './compaction';
import type { GateRewrite } from './notices';
import type { Checkpoint } from './checkpoints';
import type { HeldFile } from './held';
import type { Strategy } from './settings';
import type { ProviderProfile } from './providers';
import type { SessionSummary, ToolAccess, ToolDiff, ToolSandbox } from './routes';
import type { SessionCost } from './usage';
import type { RuleNote, RuleOptions } from './rules';

/**
 * A session's memory changed (a refresh stored facts or candidates, the user edited, forgot, restored
 * or pinned a fact, a compaction kept a memory checkpoint, another branch with its own facts is
 * shown): a window showing it reads it again.
 */
export const MemoryUpdatedEventSchema = z.object({
  type: z.literal('memory.updated'),
  sessionId: z.string(),
});
export type MemoryUpdatedEvent = z.infer<typeof MemoryUpdatedEventSchema>;

/**
 * A project's memory changed (new candidates, a decision, an edit, a check that found a fact
 * stale): a window showing a session of that project reads it again.
 */
export const ProjectUpdatedEventSchema = z.object({
  type: z.literal('project.updated'),
  /** The project's root (realpath). */
  project: z.string(),
  /** Candidates and stale facts waiting in its inbox. */
  inbox: z.number().int().nonnegative(),
});
export type ProjectUpdatedEvent = z.infer<typeof ProjectUpdatedEventSchema>;

/** Events pushed from the runtime to every renderer. */
export type AppEvent =
  | MemoryUpdatedEvent
  | ProjectUpdatedEvent
  /** Streamed text of the answer; `reasoning: true`: of the model's thinking before it (shown collapsed). */
  | { type: 'message.delta'; sessionId: string; messageId: string; delta: string; reasoning?: true }
  | { type: 'message.complete'; sessionId: string; message: StoredMessage }
  | {
      type: 'tool.requested';
      sessionId: string;
      toolCall: ToolCall;
      messageId: string;
      needsApproval: boolean;
      /** The resolved path that made a file tool ask (outside the folder, or credentials). */
      access?: ToolAccess;
      /** The gate will run other arguments than `toolCall` holds (the model's): what and why. */
      gate?: GateRewrite;
      /** A `sandboxed` shell call that asks because it would run outside the sandbox: why. */
      sandbox?: ToolSandbox;
      /** The change a file tool would make (edit_file, write_file), when the call asks. */
      diff?: ToolDiff;
      /** When it asks: the rules its card can save, built from the call. */
      rules?: RuleOptions;
      /** The rule that decided it (an `ask` rule; allow and deny rules are named in the result's `meta.rule`). */
      rule?: RuleNote;
    }
  | {
      type: 'tool.finished';
      sessionId: string;
      toolCallId: string;
      status: 'ok' | 'error' | 'denied' | 'aborted';
      durationMs: number;
      message: StoredMessage;
    }
  | { type: 'notice'; sessionId: string; message: StoredMessage }
  | { type: 'usage'; sessionId: string; usage: ContextUsage }
  /** A model call's tokens were recorded (summaries too): the session's totals now. */
  | { type: 'usage.recorded'; sessionId: string; cost: SessionCost }
  | { type: 'session.updated'; sessionId: string; session: SessionSummary | null; busy: boolean }
  | { type: 'error'; sessionId: string | null; code: string; message: string }
  /** A compaction began: the renderer shows it in place, where its divider will be. */
  | {
      type: 'compaction.started';
      sessionId: string;
      trigger: Trigger;
      strategy: Strategy;
      instructions: string | null;
      /** Percent of the window in use when it began (auto), else null. */
      percent: number | null;
    }
  /** The step it is on (`summarize`, `memory_checkpoint`, `prune_tool_outputs`…). */
  | { type: 'compaction.progress'; sessionId: string; step: string }
  /** Applied: the record is the divider from now on. */
  | { type: 'compaction.finished'; sessionId: string; compaction: CompactionRecord }
  /** Nothing applied: failed, nothing to compact, or cancelled by the user (`cancelled`). */
  | { type: 'compaction.failed'; sessionId: string; reason: string; cancelled: boolean }
  /** Undone (compaction.undo): the record, now inactive; its divider says so. */
  | { type: 'compaction.undone'; sessionId: string; compaction: CompactionRecord }
  /**
   * The provider failed and the request is sent again (the SDK's retry, or a stream cut before its
   * first token): shown while the user waits. `delayMs`: the wait the provider asked for, else null.
   */
  | {
      type: 'provider.retrying';
      sessionId: string;
      attempt: number;
      maxRetries: number;
      delayMs: number | null;
      reason: 'rate_limit' | 'server' | 'network' | 'other';
    }
  /** A checkpoint was taken at the end of a turn, or undone / redone. */
  | { type: 'checkpoint.updated'; sessionId: string; checkpoint: Checkpoint }
  /** The session's held files changed: a command's leftovers were held, or the user kept or discarded some. */
  | { type: 'held.updated'; sessionId: string; files: HeldFile[] }
  /** A permission rule was saved, changed or revoked (a card, Settings): the lists showing rules read them again. */
  | { type: 'rules.changed' }

  /** A profile changed outside the form (the window learned from a provider's error). */
  | { type: 'providers.changed'; sessionId: string; profile: ProviderProfile };

export type AppEventType = AppEvent['type'];
export const APP_EVENT_TYPES: readonly AppEventType[] = [
  'message.delta',
  'message.complete',
  'tool.requested',
  'tool.finished',
  'notice',
  'usage',
  'usage.recorded',
  'session.updated',
  'error',
  'compaction.started',
  'compaction.progress',
  'compaction.finished',
  'compaction.failed',
  'compaction.undone',
  'provider.retrying',
  'checkpoint.updated',
  'held.updated',
  'providers.changed',
  'memory.updated',
  'rules.changed',
  'project.updated',
];

const AppEventEnvelopeSchema = z.looseObject({
  type: z.enum(APP_EVENT_TYPES as readonly [AppEventType, ...AppEventType[]]),
});

/**
 * An event from the runtime, as both bridges (Electron's preload, the browser's event stream)
 * accept it: an object whose `type` is one of APP_EVENT_TYPES. The runtime built it from these
 * types; the bridges only keep anything else (a stray message, another page's post) out.
 */
export function isAppEvent(value: unknown): value is AppEvent {
  return AppEventEnvelopeSchema.safeParse(value).success;
}
