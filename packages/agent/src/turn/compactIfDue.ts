import { AUTO_MIN_MESSAGES, MAX_CONSECUTIVE_FAILURES, autoCompactionHeld } from '@threadline/context';
import type { Turn } from './turn';
import { CANCELLED_REASON, isStepFailure, runCompaction } from './compaction';
import { persistCompactionNotice } from './notices';
import { effectiveWindow, tokenBudget, type TokenBudget } from './budget';
import { autoEnabled } from './usage';
import { buildSessionView, type SessionView } from './view';

/** Consecutive failed auto compactions before auto compaction pauses for the session. */
export const AUTO_FAILURE_LIMIT = MAX_CONSECUTIVE_FAILURES;

/** Reasons of an automatic run that found nothing to do yet: no failure, never counted. */
const NOT_DUE = new Set(['below_threshold', 'too_few_messages', CANCELLED_REASON]);

/**
 * Compact if due (the auto trigger): before every model call, also between tool calls of one
 * turn. Returns the view to send: the new one after a compaction, the same one otherwise.
 * Below the strategy's minimum of messages the engine only prunes (pruning needs no minimum), and
 * over the window it folds whatever the count; such a run makes no model call and is told only
 * once it applies. After a compaction that freed too little to matter (or a run that could not
 * help), the trigger holds until the view has grown again: no compaction at every call.
 */
export async function compactIfDue(
  turn: Turn,
  sv: SessionView,
  budget: TokenBudget = tokenBudget(turn.deps, turn.sessionId, turn.profile),
): Promise<SessionView> {
  const { deps, sessionId, settings } = turn;
  const rt = turn.state;
  if (!autoEnabled(settings) || rt.autoPaused) return sv;
  // In the provider's tokens: the view's estimate plus the tool definitions, calibrated. The
  // engine is handed this same usage figure (turn/compaction.ts), so it cannot refuse what fired.
  if (!budget.overThreshold(sv.view.tokens, settings.compaction.autoThreshold)) return sv;
  const window = effectiveWindow(turn.profile);
  const now = budget.providerTokens(sv.view.tokens);
  if (autoCompactionHeld(rt.lastAuto, now, window)) return sv;
  const usage = budget.usage(sv.view.tokens);
  const percent = Math.round(usage * 100);
  const pruneOnly = conversationLength(sv) < AUTO_MIN_MESSAGES[settings.compaction.strategy] && usage <= 1;
  // No notice: the compaction.started event shows it in place, and its record is the divider.
  const outcome = await runCompaction(turn, {
    percent,
    trigger: 'auto',
    instructions: null,
    targetTokens: null,
    quiet: pruneOnly,
  });
  if (outcome.ok) {
    const next = buildSessionView(turn);
    rt.autoCompacted({ tokensBefore: now, tokensAfter: budget.providerTokens(next.view.tokens) });
    return next;
  }
  // A compaction the user cancelled says nothing about whether compaction works: not counted.
  if (outcome.reason === CANCELLED_REASON) return sv;
  // Nothing it could do now (not a step that broke): not again until the view has grown.
  if (!isStepFailure(outcome.reason ?? '')) rt.autoCompactionHeld({ tokensBefore: now, tokensAfter: now });
  if (NOT_DUE.has(outcome.reason ?? '')) return sv;
  const attempt = rt.autoCompactionFailed(AUTO_FAILURE_LIMIT);
  if (attempt >= AUTO_FAILURE_LIMIT) {
    persistCompactionNotice(deps, sessionId, {
      type: 'auto_paused',
      trigger: 'auto',
      strategy: settings.compaction.strategy,
      attempt,
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
