import { MAX_RECOVERY_ATTEMPTS, MESSAGE_OVER_WINDOW, recoveryTarget, statedContextLimit } from '@threadline/context';
import type { Strategy } from '@threadline/protocol';
import type { Turn } from './turn';
import { effectiveWindow, tokenBudget } from './budget';
import { runCompaction } from './compaction';
import { MAX_ATTEMPTS_MESSAGE, persistCompactionNotice } from './notices';

/** At most 3 recovery compactions per model call, 6 with CFPM. */
export function maxRecoveryAttempts(strategy: Strategy): number {
  return MAX_RECOVERY_ATTEMPTS[strategy];
}

/** What one recovery step did: whether a retry makes sense, and the compaction it applied. */
export interface RecoveryStep {
  retry: boolean;
  compactionId: string | null;
}

/**
 * The provider stated its window ("maximum context length is 16000 tokens") and it is smaller than
 * the one the runtime works with: the profile learns it (shown, undoable in the profile form)
 * before anything is compacted against the wrong figure. Returns whether it changed.
 */
export function learnWindowFrom(turn: Turn, err: unknown): boolean {
  const stated = statedContextLimit(err);
  const { deps, sessionId, profile } = turn;
  const before = effectiveWindow(profile);
  if (!stated || stated.limit >= before) return false;
  // The profile learns it when the request used the profile's own model; a session on another
  // model (sessions.setModel) works with it for this turn only, and the profile stays as it is.
  const own = deps.store.providers.get(profile.id)?.model === profile.model;
  const learned = own
    ? deps.store.providers.setLearnedWindow(profile.id, stated.limit)
    : { ...profile, learnedContextWindow: stated.limit };
  if (effectiveWindow(learned) === before) return false;
  turn.profile = learned;
  persistCompactionNotice(deps, sessionId, {
    type: 'window_learned',
    trigger: 'recovery',
    strategy: turn.settings.compaction.strategy,
    window: effectiveWindow(learned),
    previousWindow: before,
  });
  if (own) deps.emit({ type: 'providers.changed', sessionId, profile: learned });
  return true;
}

/**
 * recovery: the provider said the context is too long. Returns whether a retry makes sense
 * (false after the last attempt: the max-attempts notice is then persisted and the turn stops)
 * and the compaction it applied, so the caller can take back the ones that did not help.
 */
export async function recoverFromContextError(turn: Turn, attempt: number, err?: unknown): Promise<RecoveryStep> {
  const { deps, sessionId, settings } = turn;
  const strategy = settings.compaction.strategy;
  const maxAttempts = maxRecoveryAttempts(strategy);
  if (err !== undefined) learnWindowFrom(turn, err);
  if (attempt > maxAttempts) {
    persistCompactionNotice(deps, sessionId, {
      type: 'max_attempts',
      trigger: 'recovery',
      strategy,
      attempt: maxAttempts,
      maxAttempts,
      reason: MAX_ATTEMPTS_MESSAGE,
    });
    return { retry: false, compactionId: null };
  }
  persistCompactionNotice(deps, sessionId, { type: 'recovering', trigger: 'recovery', strategy, attempt, maxAttempts });
  const outcome = await runCompaction(turn, {
    trigger: 'recovery',
    instructions: null,
    // In the view's units, like everything the engine is given (turn/budget.ts).
    targetTokens: recoveryTarget(tokenBudget(deps, sessionId, turn.profile).engineWindow, attempt),
  });
  // The engine's rule: a best-effort result is applied and retried; only a message
  // that may not be hidden and is itself over the window makes a retry pointless, and the
  // message_too_large notice says which message and offers to cut it or leave it out.
  if (outcome.reason?.startsWith(MESSAGE_OVER_WINDOW)) return { retry: false, compactionId: null };
  // Any other failed compaction counts as an attempt: the loop retries and eventually stops.
  return { retry: true, compactionId: outcome.ok ? (outcome.record?.id ?? null) : null };
}
