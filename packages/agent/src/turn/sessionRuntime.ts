import { INITIAL_CALIBRATION, type CalibrationState } from '@threadline/context';
import type { ApprovalDecision } from './approvals';

/**
 * In-memory state of one session while the app runs: the running turn, pending approvals and the
 * auto-compaction guard. Everything that must survive a restart lives in the store instead.
 */
export class SessionRuntime {
  busy = false;
  abort: AbortController | null = null;
  /** Resolves the turn's wait for chat.approve, keyed by tool call id. */
  readonly pendingApprovals = new Map<string, (d: ApprovalDecision) => void>();
  consecutiveAutoFailures = 0;
  autoPaused = false;
  providerPromptTokens: number | null = null;
  /** provider / estimate, from the usage of past calls (see turn/budget.ts). */
  calibration: CalibrationState = INITIAL_CALIBRATION;
  /** Promise of the running turn, so dispose() and tests can wait for it. */
  running: Promise<void> | null = null;
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

  all(): SessionRuntime[] {
    return [...this.map.values()];
  }

  delete(sessionId: string): void {
    this.map.delete(sessionId);
  }
}
