import { isAutoThreshold, type ContextUsage, type Settings } from '@threadline/protocol';
import { effectiveWindow, tokenBudget, type TokenBudget } from './budget';
import type { Turn } from './turn';
import type { SessionView } from './view';

/** A threshold ≤ 0 or ≥ 1 disables auto compaction. */
export function autoEnabled(settings: Settings): boolean {
  return isAutoThreshold(settings.compaction.autoThreshold);
}

export function computeUsage(
  turn: Turn,
  sv: SessionView,
  budget: TokenBudget = tokenBudget(turn.deps, turn.sessionId, turn.profile),
): ContextUsage {
  const { settings, profile } = turn;
  const rt = turn.runtime;
  // The window in effect: the profile's, or the smaller one the provider stated (turn/budget.ts).
  const window = effectiveWindow(profile);
  const total = budget.providerTokens(sv.view.tokens);
  const toolServers = turn.toolServers();
  return {
    total,
    window,
    percent: window > 0 ? Math.round((total / window) * 1000) / 10 : 0,
    threshold: settings.compaction.autoThreshold,
    breakdown: {
      ...sv.view.breakdown,
      tools: budget.toolTokens,
      // The instructions and the project's memory are part of the system prompt; the meter shows
      // each as its own share.
      ...systemShares(sv),
    },
    // Another profile's figure would mislead: only what this one reported.
    providerPromptTokens: budget.learned ? rt.providerPromptTokens : null,
    calibration: Math.round(budget.ratio * 1000) / 1000,
    // About the conversation only: the usage event at a turn's end is sent while the turn still
    // holds the session, and a busy flag here left Compact disabled after every turn. Busy
    // travels in session.updated; compaction.run refuses a busy session itself.
    canCompact: sv.agentMessages >= 2,
    autoPaused: rt.autoPaused,
    toolServers,
    // Only servers can be switched off, so only with servers is there something to offer.
    toolsOverShare:
      toolServers > 0 && window > 0 && budget.toolTokens * budget.ratio > settings.mcp.toolShareWarning * window,
  };
}

export function emitUsage(turn: Turn, sv: SessionView, budget?: TokenBudget): void {
  turn.deps.emit({ type: 'usage', sessionId: turn.sessionId, usage: computeUsage(turn, sv, budget) });
}

/** The system prompt's tokens split into the base prompt, the instructions and the project's memory. */
function systemShares(sv: SessionView): Partial<ContextUsage['breakdown']> {
  if (sv.instructionsTokens <= 0 && sv.projectTokens <= 0) return {};
  let rest = sv.view.breakdown.system;
  const take = (n: number): number => {
    const got = Math.min(Math.max(0, n), rest);
    rest -= got;
    return got;
  };
  const instructions = take(sv.instructionsTokens);
  const projectMemory = take(sv.projectTokens);
  return {
    system: rest,
    ...(sv.instructionsTokens > 0 ? { instructions } : {}),
    ...(sv.projectTokens > 0 ? { projectMemory } : {}),
  };
}
