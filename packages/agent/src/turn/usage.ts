import { isAutoThreshold, type ContextUsage, type Settings } from '@threadline/protocol';
import { effectiveWindow, tokenBudget, type TokenBudget } from './budget';
import type { SessionWork } from './sessionWork';
import type { SessionView } from './view';

/** A threshold ≤ 0 or ≥ 1 disables auto compaction. */
export function autoEnabled(settings: Settings): boolean {
  return isAutoThreshold(settings.compaction.autoThreshold);
}

export function computeUsage(
  work: SessionWork,
  sv: SessionView,
  budget: TokenBudget = tokenBudget(work.deps, work.sessionId, work.profile),
): ContextUsage {
  const { settings, profile } = work;
  const rt = work.state;
  // The window in effect: the profile's, or the smaller one the provider stated (turn/budget.ts).
  const window = effectiveWindow(profile);
  const total = budget.providerTokens(sv.view.tokens);
  const toolServers = work.toolServers();
  return {
    total,
    window,
    percent: window > 0 ? Math.round((total / window) * 1000) / 10 : 0,
    threshold: settings.compaction.autoThreshold,
    // In the provider's tokens like `total`, and summing to it exactly: the meter's bar, its table
    // and its figure are one count. The instructions and the project's memory are part of the
    // system prompt; the meter shows each as its own share.
    breakdown: inProviderTokens({ ...sv.view.breakdown, tools: budget.toolTokens, ...systemShares(sv) }, total),
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

/**
 * The parts of the view (the engine's estimate) scaled to `total` (the provider's tokens), each a
 * whole number, summing to `total` exactly (the remainder goes to the largest fractions).
 */
export function inProviderTokens<T extends Record<string, number | undefined>>(parts: T, total: number): T {
  const keys = Object.keys(parts).filter((k) => typeof parts[k] === 'number');
  const sum = keys.reduce((n, k) => n + (parts[k] as number), 0);
  const out: Record<string, number> = {};
  if (sum <= 0) {
    for (const k of keys) out[k] = 0;
    return out as T;
  }
  const exact = keys.map((k) => ({ k, v: ((parts[k] as number) * total) / sum }));
  for (const { k, v } of exact) out[k] = Math.floor(v);
  let left = total - exact.reduce((n, { k }) => n + out[k]!, 0);
  for (const { k } of [...exact].sort((a, b) => (b.v % 1) - (a.v % 1))) {
    if (left <= 0) break;
    out[k]! += 1;
    left--;
  }
  return out as T;
}

export function emitUsage(work: SessionWork, sv: SessionView, budget?: TokenBudget): void {
  work.deps.emit({ type: 'usage', sessionId: work.sessionId, usage: computeUsage(work, sv, budget) });
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
