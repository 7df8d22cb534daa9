import { INITIAL_CALIBRATION, type LastAutoCompaction, type CalibrationState } from '@threadline/context';
import type { CostLedger } from './costLedger';
import type { ChatState, PendingToolCall, RunningCompaction, SessionSummary } from '@threadline/protocol';

/** `approve_original`: run the model's own arguments, not the gate's rewrite of them. */
export type ApprovalDecision = 'approve' | 'approve_original' | 'deny' | 'aborted';

/**
 * In-memory state of one session while the app runs: the running turn, pending approvals and the
 * auto-compaction guard. Everything that must survive a restart lives in the store instead.
 */
export class SessionRuntime {
  busy = false;
  abort: AbortController | null = null;
  /** Resolves the turn's wait for chat.approve, keyed by tool call id. */
  readonly pendingApprovals = new Map<string, (d: ApprovalDecision) => void>();
  /** The user's reason for a denial (chat.approve), taken by the tool step as the call's result. */
  readonly denyReasons = new Map<string, string>();
  consecutiveAutoFailures = 0;
  autoPaused = false;
  /**
   * The last automatic compaction's figures (provider tokens): one that freed too little holds the
   * auto trigger until the view has grown again (`autoCompactionHeld`: no compaction loops).
   */
  lastAuto: LastAutoCompaction | null = null;
  providerPromptTokens: number | null = null;
  /** provider / estimate, from the usage of past calls (see turn/budget.ts)... */
  calibration: CalibrationState = INITIAL_CALIBRATION;
  /** ...of this profile and model: another one tokenizes differently and starts over. */
  calibrationFor: string | null = null;
  /** Work after a turn that does not keep the session busy (its title): awaited by idle and dispose. */
  background: { promise: Promise<void>; abort: AbortController } | null = null;
  /**
   * While work runs (runSessionWork): the session's row as last stored or read, so the
   * session.updated that ends the work need not read it again; null: not known, read it.
   */
  row: SessionSummary | null = null;
  /** Promise of the running turn (or manual compaction), so cancel, delete and dispose can wait for it. */
  running: Promise<void> | null = null;
  /**
   * The step in flight, which history does not hold yet: an assistant message is committed only
   * after its tools ran. A renderer that (re)loads mid-turn reads it through chat.state.
   */
  partial: { messageId: string; text: string } | null = null;
  /** Tool calls of the step in flight, by tool call id, in request order. */
  readonly pending = new Map<string, PendingToolCall>();
  /** The compaction running now (shown in place by a renderer that reloads meanwhile). */
  compaction: RunningCompaction | null = null;
  /**
   * Bumped by the routes that write the session's small rows a turn reads (permission rules,
   * the sandbox's network switch, the session's instructions): a running turn reads them again.
   */
  rowsVersion = 0;
  /** The session's calls and prices in memory, for the cost event (turn/cost.ts); null: read them again. */
  cost: CostLedger | null = null;

  rowsChanged(): void {
    this.rowsVersion += 1;
  }

  /** The model's text of step `messageId` so far (a retry of the call starts it over). */
  streamed(messageId: string, text: string): void {
    this.partial = { messageId, text };
  }

  /** A call of the step in flight (built by protocol's pendingToolCall). */
  requested(pending: PendingToolCall): void {
    this.pending.set(pending.toolCall.id, pending);
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

  state(): ChatState {
    return {
      busy: this.busy,
      partial: this.partial ? { ...this.partial } : null,
      pending: [...this.pending.values()].map((p) => ({ ...p })),
      // Only while one runs: the idle state stays `{ busy, partial, pending }`.
      ...(this.compaction ? { compaction: { ...this.compaction } } : {}),
    };
  }
}

export class SessionRuntimes {
  private readonly map = new Map<string, SessionRuntime>();

  get(sessionId: string): SessionRuntime {
    let rt = this.map.get(sessionId);
    if (!rt) {
      rt = new SessionRuntime();
      this.map.set(sessionId, rt);
    }
    return rt;
  }

  /** A write changed the session's row (SessionSnapshots): kept while its work runs, as `row`. */
  rowChanged(sessionId: string, row: SessionSummary | null): void {
    const rt = this.map.get(sessionId);
    if (rt?.busy) rt.row = row;
  }

  /** Whether a turn runs in the session, without making a runtime for an id never seen. */
  busy(sessionId: string): boolean {
    return this.map.get(sessionId)?.busy ?? false;
  }

  all(): SessionRuntime[] {
    return [...this.map.values()];
  }

  /** A price or a profile changed: every session's cost is read again at its next cost event. */
  pricesChanged(): void {
    for (const rt of this.map.values()) rt.cost = null;
  }

  delete(sessionId: string): void {
    this.map.delete(sessionId);
  }
}
