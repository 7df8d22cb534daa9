import { AUTO_MIN_MESSAGES, MAX_CONSECUTIVE_FAILURES } from '@threadline/context';
import type { Turn } from './turn';
import { CANCELLED_REASON, runCompaction } from './compaction';
import { persistCompactionNotice } from './notices';
import { tokenBudget, type TokenBudget } from './budget';
import { autoEnabled } from './usage';
import { buildSessionView, type SessionView } from './view';

/** Consecutive failed auto compactions before auto compaction pauses for the session. */
export const AUTO_FAILURE_LIMIT = MAX_CONSECUTIVE_FAILURES;

/**
 * Compact if due (the auto trigger): before every model call, also between tool calls of one
 * turn. Returns the view to send: the new one after a compaction, the same one otherwise.
 */
export async function compactIfDue(
  scope: Turn,
  sv: SessionView,
  budget: TokenBudget = tokenBudget(scope.deps, scope.sessionId, scope.profile),
): Promise<SessionView> {
  const { deps, sessionId, settings } = scope;
  const rt = scope.runtime;
  if (!autoEnabled(settings) || rt.autoPaused) return sv;
  // In the provider's tokens: the view's estimate plus the tool definitions, calibrated. The
  // engine is handed this same usage figure (turn/compaction.ts), so it cannot refuse what fired.
  if (!budget.overThreshold(sv.view.tokens, settings.compaction.autoThreshold)) return sv;
  // Below the strategy's minimum a compaction is not due yet (not a failure): recovery covers a
  // short session with a huge message.
  if (conversationLength(sv) < AUTO_MIN_MESSAGES[settings.compaction.strategy]) return sv;
  const percent = Math.round(budget.usage(sv.view.tokens) * 100);
  // No notice: the compaction.started event shows it in place, and its record is the divider.
  const outcome = await runCompaction(scope, { percent, trigger: 'auto', instructions: null, targetTokens: null });
  if (outcome.ok) {
    rt.consecutiveAutoFailures = 0;
    return buildSessionView(scope);
  }
  // A compaction the user cancelled says nothing about whether compaction works: not counted.
  if (outcome.reason === CANCELLED_REASON) return sv;
  rt.consecutiveAutoFailures += 1;
  if (rt.consecutiveAutoFailures >= AUTO_FAILURE_LIMIT) {
    rt.autoPaused = true;
    persistCompactionNotice(deps, sessionId, {
      type: 'auto_paused',
      trigger: 'auto',
      strategy: settings.compaction.strategy,
      attempt: rt.consecutiveAutoFailures,
      reason: outcome.reason ?? undefined,
    });
  }
  return sv;
}

/** Messages of the conversation the agent sees, not counting what compactions inserted. */
function conversationLength(sv: SessionView): number {
  let n = 0;
  for (const m of sv.inView) if (typeof m.meta?.compactionId !== 'string') n++;
  return n;
}
