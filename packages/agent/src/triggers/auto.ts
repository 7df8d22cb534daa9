import { AUTO_MIN_MESSAGES, MAX_CONSECUTIVE_FAILURES } from '@threadline/context';
import type { TurnScope } from '../turn/deps';
import { CANCELLED_REASON, runCompaction } from '../turn/compaction';
import { persistCompactionNotice } from '../turn/notices';
import { tokenBudget, type TokenBudget } from '../turn/budget';
import { autoEnabled } from '../turn/usage';
import { buildSessionView, type SessionView } from '../turn/view';

/** Consecutive failed auto compactions before auto compaction pauses for the session. */
export const AUTO_FAILURE_LIMIT = MAX_CONSECUTIVE_FAILURES;

/**
 * trigger check (auto): before every model call, also between tool calls of one turn. Returns
 * the view to send: the new one after a compaction, the same one otherwise.
 */
export async function autoCompactIfNeeded(
  scope: TurnScope,
  sv: SessionView,
  budget: TokenBudget = tokenBudget(scope.deps, scope.sessionId, scope.profile),
): Promise<SessionView> {
  const { deps, sessionId, settings, profile } = scope;
  const rt = deps.runtime(sessionId);
  if (!autoEnabled(settings) || rt.autoPaused) return sv;
  // In the provider's tokens: the view's estimate plus the tool definitions, calibrated. The
  // engine is handed this same usage figure (turn/compaction.ts), so it cannot refuse what fired.
  if (!budget.overThreshold(sv.view.tokens, settings.compaction.autoThreshold)) return sv;
  // Below the strategy's minimum a compaction is not due yet (not a failure): recovery covers a
  // short session with a huge message.
  if (conversationLength(sv) < AUTO_MIN_MESSAGES[settings.compaction.strategy]) return sv;
  const percent = Math.round(budget.usage(sv.view.tokens) * 100);
  // No notice: the compaction.started event shows it in place, and its record is the divider.
  const outcome = await runCompaction({
    ...scope,
    percent,
    trigger: 'auto',
    instructions: null,
    targetTokens: null,
    signal: scope.signal,
  });
  if (outcome.ok) {
    rt.consecutiveAutoFailures = 0;
    return buildSessionView(deps, sessionId, settings, profile);
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
