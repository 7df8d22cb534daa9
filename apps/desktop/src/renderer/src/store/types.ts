import type { ConnectionState } from '../transport';
import type {
  AppEvent,
  Remember,
  Rule,
  RuleNote,
  RuleOptions,
  ToolSandbox,
  CompactionRecord,
  ContextUsage,
  GateRewrite,
  RunningCompaction,
  MemoryCandidate,
  SessionCost,
  MemoryFact,
  ProjectMemory,
  ProviderProfile,
  SessionSummary,
  Settings,
  SettingsPatch,
  StoredMessage,
  ToolAccess,
  ToolDiff,
  ToolCall,
  Checkpoint,
  HeldFile,
  HeldKeepFailure,
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
  /** The rules the approval card can save, built by the runtime from the call. */
  rules?: RuleOptions;
  /** The rule that made it ask (an ask rule, or a deny rule that may apply). */
  rule?: RuleNote;
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

/**
 * One session's state in the renderer, `bySession[id]`. Each slice owns some of its fields (the
 * `…SessionState` parts below, one per slice) and writes only those, through `patchSession`.
 */
export type SessionState = ChatSessionState & ContextSessionState & CheckpointSessionState;

export interface SessionsSlice {
  sessions: SessionSummary[];
  activeSessionId: string | null;
  /** Every session's own state, by session id (see SessionState). */
  bySession: Record<string, SessionState>;
  /**
   * The one way to change a session's state: merges `patch` (or what it returns, given the
   * session's state now) into `bySession[id]`. A slice passes only fields it owns.
   */
  patchSession(id: string, patch: Partial<SessionState> | ((s: SessionState) => Partial<SessionState>)): void;
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

/** The chat slice's part of a session's state. */
export interface ChatSessionState {
  /** The transcript; undefined until loaded. */
  messages: StoredMessage[] | undefined;
  /** A turn (or a manual compaction) runs: from session.updated, chat.state, and while sending. */
  busy: boolean;
  /** The messages waiting for the running turn to end, oldest first. */
  queued: QueuedMessage[];
  error: InlineError | null;
  /** The provider failed and the request is being sent again: shown until something streams. */
  retrying: RetryStatus | null;
  /**
   * A count of the events that changed the session's live state (a step committed, a tool
   * requested or finished, busy on or off, a compaction). A chat.state answer taken while it
   * moved is older than what the events already said and must not overwrite it: a late
   * "busy: true" after the turn's end would leave the session stuck.
   */
  liveEpoch: number;
  /** The permission rules in force for the session (its own, its folder's, everywhere); undefined until loaded. */
  rules: Rule[] | undefined;
  /** The branch changed while a turn runs: reloaded when it ends (versions come with the list). */
  reloadAfterTurn: boolean;
}

export interface ChatSlice {
  enqueue(sessionId: string, text: string, attachments?: string[]): void;
  /** Takes a queued message back (×), or out of the queue to send now. */
  unqueue(sessionId: string, id: string): QueuedMessage | null;
  /** Streamed text by message id. */
  streaming: Record<string, StreamingMessage>;
  /** Tool calls by call id. */
  tools: Record<string, ToolState>;
  /** Moved by every `rules.changed` event: Settings → Rules reads the list again. */
  rulesVersion: number;
  bumpLiveEpoch(sessionId: string): void;
  loadMessages(sessionId: string): Promise<void>;
  /** The running turn's live state (busy, streamed text, pending tool calls) from the host. */
  loadChatState(sessionId: string): Promise<void>;
  /** `attachments`: ids from attachments.add (a message may be attachments only). */
  send(sessionId: string, text: string, attachments?: string[]): Promise<boolean>;
  cancel(sessionId: string): Promise<void>;
  /**
   * Answers a card. `remember`: rules made from the call, with this answer, in a scope.
   * `useOriginal`: run the model's own arguments rather than the gate's rewrite. `reason` (with
   * deny): what the model reads as the tool's result, and a remembered rule's reason.
   */
  approve(
    sessionId: string,
    toolCallId: string,
    decision: 'approve' | 'deny',
    opts?: { remember?: Remember; useOriginal?: boolean; reason?: string },
  ): Promise<boolean>;
  loadRules(sessionId: string): Promise<void>;
  /** Revokes a rule (the header's list, Settings). */
  revokeRule(id: string): Promise<void>;
  /** Again after an error: the same stored request (chat.retry), or the refused text resent. */
  retry(sessionId: string): Promise<void>;
  /** A new version of an earlier user message, answered on its own branch. */
  edit(sessionId: string, messageId: string, text: string): Promise<boolean>;
  /** A new version of the last reply. */
  regenerate(sessionId: string): Promise<void>;
  /** Shows the branch through one of a message's versions. */
  switchBranch(sessionId: string, messageId: string): Promise<void>;
  /** A message to scroll to once its session shows it (a search result). */
  focus: { sessionId: string; messageId: string; nonce: number } | null;
  openMessage(sessionId: string, messageId: string): Promise<void>;
  dismissError(sessionId: string): void;
  addMessage(m: StoredMessage): void;
  /**
   * The runtime is gone (stopped, or restarted with a new token): nothing will finish what was
   * running, so running and waiting tool cards end as aborted and no session stays busy.
   */
  abortLive(): void;
}

/** The context slice's part of a session's state (each undefined until loaded). */
export interface ContextSessionState {
  usage: ContextUsage | undefined;
  compactions: CompactionRecord[] | undefined;
  compacting: boolean;
  /** The compaction running now (from the compaction.* events or chat.state), if any. */
  liveCompaction: LiveCompaction | null;
  facts: MemoryFact[] | undefined;
  candidates: MemoryCandidate[] | undefined;
  /** The project memory of the session's folder (project.get; again on project.updated for it). */
  project: ProjectMemory | undefined;
  /** Tokens and cost of the session's model calls (usage.session, usage.recorded events). */
  cost: SessionCost | undefined;
}

export interface ContextSlice {
  loadContext(sessionId: string): Promise<void>;
  loadMemory(sessionId: string): Promise<void>;
  loadProject(sessionId: string): Promise<void>;
  compact(sessionId: string, instructions?: string): Promise<void>;
  undoCompaction(sessionId: string): Promise<void>;
  /** The compaction running in a session as chat.state told it (one that began before this page loaded). */
  showLiveCompaction(sessionId: string, compaction: LiveCompaction | null): void;
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
export type SettingsTab = 'general' | 'providers' | 'context' | 'tools' | 'rules' | 'usage';

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
/** The checkpoint slice's part of a session's state. */
export interface CheckpointSessionState {
  /** Checkpoints of the session's working folder (the "N files changed" rows); undefined until loaded. */
  checkpoints: Checkpoint[] | undefined;
  /** Files its commands left that make code run later, held for the user (the held-files card). */
  held: HeldFile[] | undefined;
}

/** Checkpoints of each session's working folder: the "N files changed" rows, undo and redo. */
export interface CheckpointSlice {
  /** A checkpoint whose undo or redo is in flight. */
  checkpointBusy: Record<string, boolean>;
  loadCheckpoints(sessionId: string): Promise<void>;
  /**
   * Undo (`restore`) or redo a checkpoint; a refusal is shown as a toast. Resolves with the files
   * that changed since the turn when nothing was written (the caller asks before `force`).
   */
  changeCheckpoint(checkpoint: Checkpoint, action: 'restore' | 'redo', force?: boolean): Promise<string[]>;
  /** A session whose Keep or Discard of held files is in flight. */
  heldBusy: Record<string, boolean>;
  /**
   * Keeps or discards the session's held files; resolves with those that could not be put back
   * (they stay held), a refusal shown as a toast.
   */
  resolveHeld(sessionId: string, decision: 'keep' | 'discard'): Promise<HeldKeepFailure[]>;
}

export type AppState = SessionsSlice & ChatSlice & ContextSlice & SettingsSlice & UiSlice & CheckpointSlice;

/**
 * A slice's part of the event stream: made once per store connection (it may keep a buffer), it
 * applies the events that change its own state and ignores the rest.
 */
export type SliceEvents = (get: () => AppState, set: (patch: Partial<AppState>) => void) => (event: AppEvent) => void;
