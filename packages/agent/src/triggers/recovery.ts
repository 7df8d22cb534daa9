import { MAX_RECOVERY_ATTEMPTS, MESSAGE_OVER_WINDOW, recoveryTarget } from '@threadline/context';
import type { Strategy } from '@threadline/protocol';
import type { TurnScope } from '../turn/deps';
import { tokenBudget } from '../turn/budget';
import { runCompaction } from '../turn/compaction';
import { MAX_ATTEMPTS_MESSAGE, persistCompactionNotice } from '../turn/notices';

/** SPEC §3.5: at most 3 recovery compactions per model call, 6 with CFPM. */
export function maxRecoveryAttempts(strategy: Strategy): number {
  return MAX_RECOVERY_ATTEMPTS[strategy];
}

/**
 * recovery: the provider said the context is too long. Returns true when a retry makes sense,
 * false after the last attempt (the max-attempts notice is then persisted and the turn stops).
 */
export async function recoverFromContextError(scope: TurnScope, attempt: number): Promise<boolean> {
  const { deps, sessionId, settings, profile } = scope;
  const strategy = settings.compaction.strategy;
  const maxAttempts = maxRecoveryAttempts(strategy);
  if (attempt > maxAttempts) {
    persistCompactionNotice(deps, sessionId, {
      type: 'max_attempts',
      trigger: 'recovery',
      strategy,
      attempt: maxAttempts,
      maxAttempts,
      reason: MAX_ATTEMPTS_MESSAGE,
    });
    return false;
  }
  persistCompactionNotice(deps, sessionId, { type: 'recovering', trigger: 'recovery', strategy, attempt, maxAttempts });
  const outcome = await runCompaction({
    ...scope,
    trigger: 'recovery',
    instructions: null,
    // In the view's units, like everything the engine is given (turn/budget.ts).
    targetTokens: recoveryTarget(tokenBudget(deps, sessionId, profile).engineWindow, attempt),
    signal: scope.signal,
  });
  // The engine's rule (SPEC §3.4): a best-effort result is applied and retried; only a message
  // that may not be hidden and is itself over the window makes a retry pointless, and the
  // compaction_failed notice already says which message.
  if (outcome.reason?.startsWith(MESSAGE_OVER_WINDOW)) return false;
  // Any other failed compaction counts as an attempt: the loop retries and eventually stops.
  return true;
}
