import { isAutoThreshold, type ContextUsage, type ProviderProfile, type Settings } from '@threadline/protocol';
import { effectiveWindow, tokenBudget, type TokenBudget } from './budget';
import type { TurnDeps } from './deps';
import type { SessionView } from './view';

/** A threshold ≤ 0 or ≥ 1 disables auto compaction (SPEC §3.5). */
export function autoEnabled(settings: Settings): boolean {
  return isAutoThreshold(settings.compaction.autoThreshold);
}

export function computeUsage(
  deps: Pick<TurnDeps, 'toolsFor' | 'runtime' | 'mcp'>,
  sessionId: string,
  sv: SessionView,
  profile: ProviderProfile,
  settings: Settings,
  budget: TokenBudget = tokenBudget(deps, sessionId, profile),
): ContextUsage {
  const rt = deps.runtime(sessionId);
  // The window in effect: the profile's, or the smaller one the provider stated (turn/budget.ts).
  const window = effectiveWindow(profile);
  const total = budget.providerTokens(sv.view.tokens);
  const toolServers = deps.mcp?.serverCount(sessionId) ?? 0;
  return {
    total,
    window,
    percent: window > 0 ? Math.round((total / window) * 1000) / 10 : 0,
    threshold: settings.compaction.autoThreshold,
    breakdown: {
      ...sv.view.breakdown,
      tools: budget.toolTokens,
      // The instructions are part of the system prompt; the meter shows them as their own share.
      ...(sv.instructionsTokens > 0
        ? {
            system: Math.max(0, sv.view.breakdown.system - sv.instructionsTokens),
            instructions: Math.min(sv.instructionsTokens, sv.view.breakdown.system),
          }
        : {}),
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

export function emitUsage(
  deps: Pick<TurnDeps, 'toolsFor' | 'runtime' | 'mcp' | 'emit'>,
  sessionId: string,
  sv: SessionView,
  profile: ProviderProfile,
  settings: Settings,
  budget?: TokenBudget,
): void {
  deps.emit({ type: 'usage', sessionId, usage: computeUsage(deps, sessionId, sv, profile, settings, budget) });
}
