import { INITIAL_CALIBRATION, type LastAutoCompaction, type CalibrationState } from '@threadline/context';
import type { ChatState, PendingToolCall, RunningCompaction, SessionSummary } from '@threadline/protocol';
import type { CostLedger } from './costLedger';
import type { SessionSnapshot } from './history';

/** `approve_original`: run the model's own arguments, not the gate's rewrite of them. */
export type ApprovalDecision = 'approve' | 'approve_original' | 'deny' | 'aborted';

/** Work after a turn that does not keep the session busy (its title). */
export interface BackgroundWork {
  promise: Promise<void>;
  abort: AbortController;
}

/**
 * One open session's state in memory while the app runs: its running work (busy, Stop, what
 * delete and dispose wait for), the step in flight and its pending approvals, the auto-compaction
 * guard, the calibration of its counts, its cost ledger, and its history snapshot while it is
 * loaded (session/snapshot.ts loads, writes and drops it). Everything that must survive a restart
 * lives in the store instead. Only this class writes these fields: everyone else reads them, or
 * says what happened through a method.
 */
export class Session {
  private _busy = false;
  private _abort: AbortController | null = null;
  /** Resolves the turn's wait for chat.approve, keyed by tool call id. */
  private readonly approvals = new Map<string, (d: ApprovalDecision) => void>();
  /** The user's reason for a denial (chat.approve), taken by the tool step as the call's result. */
  private readonly denyReasons = new Map<string, string>();
  private failures = 0;
  private _autoPaused = false;
  private _lastAuto: LastAutoCompaction | null = null;
  private _providerPromptTokens: number | null = null;
  private _calibration: CalibrationState = INITIAL_CALIBRATION;
  private _calibrationFor: string | null = null;
  private _background: BackgroundWork | null = null;
  private row: SessionSummary | null = null;
  private _running: Promise<void> | null = null;
  private partial: { messageId: string; text: string } | null = null;
  private readonly pending = new Map<string, PendingToolCall>();
  private _compaction: RunningCompaction | null = null;
  private _rowsVersion = 0;
  private cost: CostLedger | null = null;
  private _snapshot: SessionSnapshot | null = null;
  /** How many turns hold the snapshot: trusted without the leaf check, never dropped meanwhile. */
  private holds = 0;

  /** Whether its work (a turn, a manual compaction) runs. */
  get busy(): boolean {
    return this._busy;
  }

  /** Settles when the running work has ended (null: none runs). */
  get running(): Promise<void> | null {
    return this._running;
  }

  /** Its work after a turn (the title), awaited by idle and dispose. */
  get background(): BackgroundWork | null {
    return this._background;
  }

  // --- its work ---

  /** Work starts: busy, stoppable through `abort`. The caller has checked it was not busy. */
  workStarted(abort: AbortController): void {
    this._busy = true;
    this._abort = abort;
  }

  /** What idle, delete and dispose wait for while the work runs. */
  workRuns(whole: Promise<void>): void {
    this._running = whole;
  }

  /**
   * The work ended: not busy, the step in flight forgotten. Returns the session's row as the work
   * last stored it (or a route changed it meanwhile), null: read it now.
   */
  workEnded(): SessionSummary | null {
    const last = this.row;
    this.row = null;
    this.clearStep();
    this._busy = false;
    this._abort = null;
    this._running = null;
    return last;
  }

  /** Stop (chat.cancel, sessions.delete, dispose): false when no work runs. */
  stop(): boolean {
    if (!this._abort) return false;
    this._abort.abort();
    return true;
  }

  /** The session's row as just stored, kept while its work runs for the update that ends it. */
  rowShown(row: SessionSummary | null): void {
    if (this._busy) this.row = row;
  }

  /** Work after a turn that does not keep it busy; at most one at a time (false: one runs). */
  runInBackground(start: (signal: AbortSignal) => Promise<void>): boolean {
    if (this._background) return false;
    const abort = new AbortController();
    const work: BackgroundWork = { abort, promise: Promise.resolve() };
    this._background = work;
    work.promise = start(abort.signal).finally(() => {
      if (this._background === work) this._background = null;
    });
    return true;
  }

  // --- the step in flight and its approvals ---

  /** The model's text of step `messageId` so far (a retry of the call starts it over: `streamed(id, '')`). */
  streamed(messageId: string, text: string): void {
    this.partial = { messageId, text };
  }

  /** A model call starts (again): no text of it yet. */
  streamRestarted(): void {
    this.partial = null;
  }

  /** A call of the step in flight (built by protocol's pendingToolCall). */
  requested(pending: PendingToolCall): void {
    this.pending.set(pending.toolCall.id, pending);
  }

  /** A call of the step in flight, by id. */
  pendingCall(toolCallId: string): PendingToolCall | undefined {
    return this.pending.get(toolCallId);
  }

  /** The user answered (or the policy decided): the call leaves the waiting state. */
  decided(toolCallId: string): void {
    const p = this.pending.get(toolCallId);
    if (p) this.pending.set(toolCallId, { ...p, status: 'running' });
  }

  /** The step was committed (or the turn ended): history tells the rest. */
  clearStep(): void {
    this.partial = null;
    this.pending.clear();
  }

  /** Waits for the user's answer on a call's card (chat.approve), or for `signal` (then 'aborted'). */
  awaitApproval(toolCallId: string, signal: AbortSignal): Promise<ApprovalDecision> {
    return new Promise<ApprovalDecision>((resolve) => {
      if (signal.aborted) {
        resolve('aborted');
        return;
      }
      const onAbort = (): void => {
        this.approvals.delete(toolCallId);
        resolve('aborted');
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.approvals.set(toolCallId, (d) => {
        signal.removeEventListener('abort', onAbort);
        this.approvals.delete(toolCallId);
        // At once, not after the turn resumes: a chat.state right after chat.approve says so.
        this.decided(toolCallId);
        resolve(d);
      });
    });
  }

  /** Whether the call's card waits for the user. */
  waitsForApproval(toolCallId: string): boolean {
    return this.approvals.has(toolCallId);
  }

  /** The user's answer on a waiting card (false: no such card waits); a denial may carry a reason. */
  answer(toolCallId: string, decision: ApprovalDecision, reason?: string): boolean {
    const waiter = this.approvals.get(toolCallId);
    if (!waiter) return false;
    if (decision === 'deny' && reason) this.denyReasons.set(toolCallId, reason);
    waiter(decision);
    return true;
  }

  /** The reason the user gave for denying the call, taken once. */
  takeDenyReason(toolCallId: string): string | undefined {
    const reason = this.denyReasons.get(toolCallId);
    this.denyReasons.delete(toolCallId);
    return reason;
  }

  /** What a renderer that (re)loads mid-turn is told (chat.state). */
  state(): ChatState {
    return {
      busy: this._busy,
      partial: this.partial ? { ...this.partial } : null,
      pending: [...this.pending.values()].map((p) => ({ ...p })),
      // Only while one runs: the idle state stays `{ busy, partial, pending }`.
      ...(this._compaction ? { compaction: { ...this._compaction } } : {}),
    };
  }

  // --- compaction ---

  /** The compaction running now (shown in place by a renderer that reloads meanwhile). */
  get compaction(): RunningCompaction | null {
    return this._compaction;
  }

  compactionStarted(running: Omit<RunningCompaction, 'step'>): void {
    this._compaction = { ...running, step: null };
  }

  /** The running compaction started a step; returns the step's index (from 1). */
  compactionStep(step: string, tokens: number): number {
    const index = (this._compaction?.index ?? 0) + 1;
    if (this._compaction) this._compaction = { ...this._compaction, step, index, tokens };
    return index;
  }

  compactionEnded(): void {
    this._compaction = null;
  }

  /** Automatic compaction paused after failing in a row (a manual one that works resumes it). */
  get autoPaused(): boolean {
    return this._autoPaused;
  }

  /**
   * The last automatic compaction's figures (provider tokens): one that freed too little holds the
   * auto trigger until the view has grown again (`autoCompactionHeld`: no compaction loops).
   */
  get lastAuto(): LastAutoCompaction | null {
    return this._lastAuto;
  }

  /** An automatic compaction worked: `figures` hold the trigger until the view grows again. */
  autoCompacted(figures: LastAutoCompaction): void {
    this.failures = 0;
    this._lastAuto = figures;
  }

  /** An automatic compaction could do nothing now: not again until the view has grown past `figures`. */
  autoCompactionHeld(figures: LastAutoCompaction): void {
    this._lastAuto = figures;
  }

  /** An automatic compaction failed; at `limit` failures in a row it pauses. Returns the failures so far. */
  autoCompactionFailed(limit: number): number {
    this.failures += 1;
    if (this.failures >= limit) this._autoPaused = true;
    return this.failures;
  }

  /** A manual compaction worked: compaction works again, a paused automatic one resumes. */
  compactionWorks(): void {
    this.failures = 0;
    this._autoPaused = false;
  }

  // --- counts and cost ---

  /** provider / estimate, from the usage of past calls (see turn/budget.ts)... */
  get calibration(): CalibrationState {
    return this._calibration;
  }

  /** ...of this profile and model: another one tokenizes differently and starts over. */
  get calibrationFor(): string | null {
    return this._calibrationFor;
  }

  /** The provider's prompt tokens of the last call. */
  get providerPromptTokens(): number | null {
    return this._providerPromptTokens;
  }

  /** A model call's usage came back: the calibration of profile and model `key` learned from it. */
  usageObserved(promptTokens: number, calibration: CalibrationState, key: string): void {
    this._providerPromptTokens = promptTokens;
    this._calibration = calibration;
    this._calibrationFor = key;
  }

  /** The session's calls and prices in memory (turn/cost.ts), made by `read` when not held. */
  costLedger(read: () => CostLedger): CostLedger {
    return (this.cost ??= read());
  }

  /** A call was recorded: the ledger, when held, adds it. */
  callRecorded(add: (ledger: CostLedger) => void): void {
    if (this.cost) add(this.cost);
  }

  /** A price, a profile or the calls' grouping changed: the cost is read again at its next event. */
  costChanged(): void {
    this.cost = null;
  }

  // --- the session's small rows ---

  /**
   * Bumped by the routes that write the session's small rows a turn reads (permission rules,
   * the sandbox's network switch, the session's instructions): a running turn reads them again.
   */
  get rowsVersion(): number {
    return this._rowsVersion;
  }

  rowsChanged(): void {
    this._rowsVersion += 1;
  }

  // --- its history snapshot (loaded, written and dropped by session/snapshot.ts) ---

  /** The active branch in memory while it is loaded (null: read from the store on next use). */
  get snapshot(): SessionSnapshot | null {
    return this._snapshot;
  }

  /** Whether a turn holds the snapshot. */
  get held(): boolean {
    return this.holds > 0;
  }

  snapshotLoaded(snapshot: SessionSnapshot): void {
    this._snapshot = snapshot;
  }

  snapshotDropped(): void {
    this._snapshot = null;
  }

  /** A turn takes its hold on the snapshot (SessionSnapshots.hold). */
  hold(): void {
    this.holds += 1;
  }

  release(): void {
    if (this.holds > 0) this.holds -= 1;
  }
}

/** The one registry of open sessions' in-memory state, by id. */
export class Sessions {
  private readonly map = new Map<string, Session>();

  get(sessionId: string): Session {
    let session = this.map.get(sessionId);
    if (!session) {
      session = new Session();
      this.map.set(sessionId, session);
    }
    return session;
  }

  /** The open sessions by id, read only (a lookup that opens none). */
  get open(): ReadonlyMap<string, Session> {
    return this.map;
  }

  /** A write changed the session's row (SessionSnapshots): kept while its work runs. */
  rowChanged(sessionId: string, row: SessionSummary | null): void {
    this.map.get(sessionId)?.rowShown(row);
  }

  /** Whether work runs in the session, without making a Session for an id never seen. */
  busy(sessionId: string): boolean {
    return this.map.get(sessionId)?.busy ?? false;
  }

  all(): Session[] {
    return [...this.map.values()];
  }

  /** A price or a profile changed: every session's cost is read again at its next cost event. */
  pricesChanged(): void {
    for (const s of this.map.values()) s.costChanged();
  }

  delete(sessionId: string): void {
    this.map.delete(sessionId);
  }
}
