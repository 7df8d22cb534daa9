import type { ConnectionState } from '../transport';
import type {
  AppEvent,
  ApprovalPolicy,
  ToolSandbox,
  CompactionRecord,
  ContextUsage,
  GateRewrite,
  RunningCompaction,
  MemoryCandidate,
  SessionCost,
  MemoryFact,
  ProviderProfile,
  SessionSummary,
  Settings,
  SettingsPatch,
  StoredMessage,
  ToolAccess,
  ToolDiff,
  ToolCall,
  Checkpoint,
} from '@threadline/protocol';

export type ToolStatus = 'waiting' | 'running' | 'ok' | 'error' | 'denied' | 'aborted';

export interface ToolState {
  sessionId: string;
  status: ToolStatus;
  needsApproval: boolean;
  durationMs: number | null;
  /**
   * The call and the assistant message it belongs to, from `tool.requested`. The runtime commits
   * an assistant message together with its tool results, so until then this is the only place a
   * pending call (one waiting for approval, say) can be drawn from.
   */
  call?: ToolCall;
  messageId?: string;
  /** The resolved path that made a file tool ask (outside the working folder, or credentials). */
  access?: ToolAccess;
  /** The pre-tool gate will run other arguments than the model asked for: what and why. */
  gate?: GateRewrite;
  /** A `sandboxed` shell call that asks: it would run outside the OS sandbox, and why. */
  sandbox?: ToolSandbox;
  /** The change a file tool would make, shown on the approval card before it is applied. */
  diff?: ToolDiff;
}

/** A compaction running now, shown in place where its divider will be. */
export type LiveCompaction = RunningCompaction;

export interface StreamingMessage {
  sessionId: string;
  messageId: string;
  text: string;
  /** The model's thinking streamed so far, when it sends one apart from the answer. */
  reasoning?: string;
}

export interface InlineError {
  code: string;
  message: string;
  /** Text to send again on "retry" (the last user message), if any. */
  retryText: string | null;
  /** false: the request itself was refused, nothing was stored, so Retry sends retryText again. */
  stored: boolean;
}

export interface SessionsSlice {
  sessions: SessionSummary[];
  activeSessionId: string | null;
  busy: Record<string, boolean>;
  loadSessions(): Promise<void>;
  createSession(title?: string): Promise<string | null>;
  renameSession(id: string, title: string): Promise<void>;
  deleteSession(id: string): Promise<void>;
  selectSession(id: string | null): Promise<void>;
  upsertSession(s: SessionSummary): void;
}

export type RetryStatus = Omit<Extract<AppEvent, { type: 'provider.retrying' }>, 'type' | 'sessionId'>;

/** A message typed while a turn runs: sent when the turn ends (visible, cancellable). */
export interface QueuedMessage {
  id: string;
  text: string;
  /** Attachment ids (from attachments.add) sent with it. */
  attachments: string[];
}

export interface ChatSlice {
  messages: Record<string, StoredMessage[]>;
  /** Per session, the messages waiting for the running turn to end, oldest first. */
  queued: Record<string, QueuedMessage[]>;
  enqueue(sessionId: string, text: string, attachments?: string[]): void;
  /** Takes a queued message back (×), or out of the queue to send now. */
  unqueue(sessionId: string, id: string): QueuedMessage | null;
  streaming: Record<string, StreamingMessage>;
  tools: Record<string, ToolState>;
  errors: Record<string, InlineError | null>;
  /** The provider failed and the request is being sent again: shown until something streams. */
  retrying: Record<string, RetryStatus | null>;
  /**
   * A count per session of the events that changed its live state (a step committed, a tool
   * requested or finished, busy on or off, a compaction). A chat.state answer taken while it
   * moved is older than what the events already said and must not overwrite it: a late
   * "busy: true" after the turn's end would leave the session stuck.
   */
  liveEpoch: Record<string, number>;
  bumpLiveEpoch(sessionId: string): void;
  loadMessages(sessionId: string): Promise<void>;
  /** The running turn's live state (busy, streamed text, pending tool calls) from the host. */
  loadChatState(sessionId: string): Promise<void>;
  /** `attachments`: ids from attachments.add (a message may be attachments only). */
  send(sessionId: string, text: string, attachments?: string[]): Promise<boolean>;
  cancel(sessionId: string): Promise<void>;
  /**
   * `remember`: the same answer for this tool for the rest of the session. `useOriginal`: run the
   * model's own arguments rather than the gate's rewrite.
   */
  approve(
    sessionId: string,
    toolCallId: string,
    decision: 'approve' | 'deny',
    remember?: boolean,
    useOriginal?: boolean,
    /** With deny: why, which is what the model reads as the tool's result. */
    reason?: string,
  ): Promise<void>;
  /** Per-session approval policies by tool name. */
  approvals: Record<string, Record<string, ApprovalPolicy>>;
  loadApprovals(sessionId: string): Promise<void>;
  setApproval(sessionId: string, toolName: string, policy: ApprovalPolicy | null): Promise<void>;
  /** Again after an error: the same stored request (chat.retry), or the refused text resent. */
  retry(sessionId: string): Promise<void>;
  /** A new version of an earlier user message, answered on its own branch. */
  edit(sessionId: string, messageId: string, text: string): Promise<boolean>;
  /** A new version of the last reply. */
  regenerate(sessionId: string): Promise<void>;
  /** Shows the branch through one of a message's versions. */
  switchBranch(sessionId: string, messageId: string): Promise<void>;
  /** Sessions whose branch changed while a turn runs: reloaded when it ends (versions come with the list). */
  reloadAfterTurn: Record<string, boolean>;
  /** A message to scroll to once its session shows it (a search result). */
  focus: { sessionId: string; messageId: string; nonce: number } | null;
  openMessage(sessionId: string, messageId: string): Promise<void>;
  dismissError(sessionId: string): void;
  addMessage(m: StoredMessage): void;
}

export interface ContextSlice {
  usage: Record<string, ContextUsage>;
  compactions: Record<string, CompactionRecord[]>;
  compacting: Record<string, boolean>;
  /** The compaction running in each session (from the compaction.* events), if any. */
  liveCompaction: Record<string, LiveCompaction | null>;
  facts: Record<string, MemoryFact[]>;
  candidates: Record<string, MemoryCandidate[]>;
  /** Tokens and cost of each session's model calls (usage.session, usage.recorded events). */
  cost: Record<string, SessionCost>;
  loadContext(sessionId: string): Promise<void>;
  loadMemory(sessionId: string): Promise<void>;
  compact(sessionId: string, instructions?: string): Promise<void>;
  undoCompaction(sessionId: string): Promise<void>;
}

export interface SettingsSlice {
  settings: Settings | null;
  providers: ProviderProfile[];
  loadSettings(): Promise<void>;
  loadProviders(): Promise<void>;
  /** Resolves with the server's error message when rejected, null when applied. */
  updateSettings(patch: SettingsPatch): Promise<string | null>;
}

export type Panel = 'none' | 'settings' | 'memory';
export type SettingsTab = 'general' | 'providers' | 'context' | 'tools' | 'usage';

export interface UiSlice {
  /**
   * The sessions sidebar: `auto` follows the window (shown when wide, hidden below ~760 px);
   * `shown` lays it over a narrow window; `hidden` gives a wide window to the chat.
   */
  sidebar: 'auto' | 'shown' | 'hidden';
  /** The header's sidebar button: hides or shows it for the width the window has now. */
  toggleSidebar(narrow: boolean): void;
  phase: 'loading' | 'setup' | 'ready' | 'error';
  /** The link to the runtime (browser mode; the desktop's IPC is always 'open'). */
  connection: ConnectionState;
  /**
   * A new connection state: when the runtime is gone (stopped, or restarted with a new token)
   * nothing will finish what was running, so running and waiting tool cards end as aborted.
   */
  setConnection(s: ConnectionState): void;
  bootError: string | null;
  panel: Panel;
  toast: string | null;
  setPanel(p: Panel): void;
  /** The tab Settings opens on. */
  settingsTab: SettingsTab;
  /** Settings, on a given tab (an error notice's link to the provider profile). */
  openSettings(tab: SettingsTab): void;
  showToast(text: string | null): void;
  boot(): Promise<void>;
}

/** Checkpoints of each session's working folder: the "N files changed" rows, undo and redo. */
export interface CheckpointSlice {
  checkpoints: Record<string, Checkpoint[]>;
  /** A checkpoint whose undo or redo is in flight. */
  checkpointBusy: Record<string, boolean>;
  loadCheckpoints(sessionId: string): Promise<void>;
  /**
   * Undo (`restore`) or redo a checkpoint; a refusal is shown as a toast. Resolves with the files
   * that changed since the turn when nothing was written (the caller asks before `force`).
   */
  changeCheckpoint(checkpoint: Checkpoint, action: 'restore' | 'redo', force?: boolean): Promise<string[]>;
}

export type AppState = SessionsSlice & ChatSlice & ContextSlice & SettingsSlice & UiSlice & CheckpointSlice;

/**
 * A slice's part of the event stream: made once per store connection (it may keep a buffer), it
 * applies the events that change its own state and ignores the rest.
 */
export type SliceEvents = (get: () => AppState, set: (patch: Partial<AppState>) => void) => (event: AppEvent) => void;
