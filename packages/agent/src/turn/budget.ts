import {
  DEFAULT_CONTEXT_WINDOW,
  INITIAL_CALIBRATION,
  contextWindowFor,
  countMessageTokens,
  observeUsage,
  shouldAutoCompact,
} from '@threadline/context';
import type { ProviderProfile, ServerWindow } from '@threadline/protocol';
import type { ToolRegistry } from '../tools/registry';
import type { TurnDeps } from './deps';

/**
 * The view's estimate is not what the provider counts: every request also carries the tool
 * definitions, and a model without a known tokenizer is estimated at chars/4 (numbers, code and
 * Chinese cost more). Left alone, the estimate says 60 % while the provider answers "context too
 * long". The budget adds the tool definitions and scales by the ratio the provider's reported
 * usage showed, so the meter, the auto trigger and the compaction targets all speak
 * in the provider's tokens.
 */
export interface TokenBudget {
  /** Provider tokens per estimated token, smoothed; 1 until the provider reported usage. */
  ratio: number;
  /** Whether the ratio (and the last reported usage) come from this profile and model. */
  learned: boolean;
  /** Estimated tokens of the tool definitions each request carries (not part of the view). */
  toolTokens: number;
  /** The window less the tool definitions, in the view's own units (room for messages). */
  viewWindow: number;
  /**
   * The whole window in the view's units: what the engine compacts against, the tool
   * definitions being part of its fixed tokens (CompactInput.toolTokens), so its targets and
   * its figures speak like the meter.
   */
  engineWindow: number;
  /** What the provider would count for a view whose estimate is `viewTokens`. */
  providerTokens(viewTokens: number): number;
  /** Usage as a fraction of the window, in the provider's units, tool definitions included. */
  usage(viewTokens: number): number;
  /**
   * THE decision "over the auto threshold": the trigger asks it, and the engine is
   * handed the same usage figure (CompactInput.usage) so it cannot answer otherwise.
   */
  overThreshold(viewTokens: number, threshold: number): boolean;
}

/** What the budget reads: the session's tools and its learned ratio. */
export type BudgetDeps = Pick<TurnDeps, 'toolsFor' | 'sessionState'>;

const toolTokenCache = new WeakMap<ToolRegistry, Map<string, number>>();

/**
 * The tool definitions, counted once per registry and model: a session's registry is the same
 * object until its MCP servers' tools change.
 */
export function toolDefinitionTokens(deps: Pick<TurnDeps, 'toolsFor'>, sessionId: string, model: string): number {
  const registry = deps.toolsFor(sessionId);
  let byModel = toolTokenCache.get(registry);
  if (!byModel) toolTokenCache.set(registry, (byModel = new Map()));
  let n = byModel.get(model);
  if (n === undefined) {
    const specs = registry.specs();
    n = specs.length === 0 ? 0 : countMessageTokens({ role: 'system', content: JSON.stringify(specs) }, model);
    byModel.set(model, n);
  }
  return n;
}

/**
 * The window the runtime works with: the profile's, or the smaller one the provider stated in a
 * context-limit error (`learnedContextWindow`, issue 22) until the user undoes it, or the smaller
 * one the local server runs the model with (`serverWindow`, read from the server: past it Ollama
 * silently drops the beginning, the others refuse).
 */
export function effectiveWindow(
  profile: Pick<ProviderProfile, 'contextWindow'> & {
    learnedContextWindow?: number | null;
    model?: string;
    serverWindow?: ServerWindow | null;
  },
): number {
  let w = profile.contextWindow;
  const learned = profile.learnedContextWindow;
  if (typeof learned === 'number' && learned > 0 && learned < w) w = learned;
  const sw = profile.serverWindow;
  if (sw?.window && (profile.model === undefined || sw.model === profile.model) && sw.window < w) w = sw.window;
  return w;
}

/**
 * A profile's figures for one of its models (a session's chosen model, a helper's): the window is
 * the profile's for its own model, the model table's for another (the profile's when the table
 * does not know it). A window learned from the provider belongs to the profile's own model.
 */
export function profileForModel(profile: ProviderProfile, model: string): ProviderProfile {
  if (model === profile.model) return profile;
  const known = contextWindowFor(model);
  if (known === DEFAULT_CONTEXT_WINDOW) return { ...profile, model };
  return { ...profile, model, contextWindow: known, learnedContextWindow: null };
}

/** Calibration is learned per profile and model: a switch must not carry a ratio over. */
function calibrationKey(profile: ProviderProfile): string {
  return `${profile.id}\u0000${profile.model}`;
}

export function tokenBudget(deps: BudgetDeps, sessionId: string, profile: ProviderProfile): TokenBudget {
  const rt = deps.sessionState(sessionId);
  const learned = rt.calibrationFor === calibrationKey(profile);
  const ratio = learned ? rt.calibration.ratio : 1;
  const toolTokens = toolDefinitionTokens(deps, sessionId, profile.model);
  const window = effectiveWindow(profile);
  const providerTokens = (viewTokens: number): number => Math.round((viewTokens + toolTokens) * ratio);
  const usage = (viewTokens: number): number => (window > 0 ? providerTokens(viewTokens) / window : 0);
  return {
    ratio,
    learned,
    toolTokens,
    viewWindow: Math.max(1, Math.floor(window / ratio) - toolTokens),
    engineWindow: Math.max(1, Math.floor(window / ratio)),
    providerTokens,
    usage,
    overThreshold: (viewTokens, threshold) => shouldAutoCompact(usage(viewTokens), threshold),
  };
}

/** After a call: the provider's `prompt_tokens` for a view we estimated at `viewTokens`. */
export function observeProviderUsage(
  deps: BudgetDeps,
  sessionId: string,
  profile: ProviderProfile,
  viewTokens: number,
  promptTokens: number,
): void {
  const rt = deps.sessionState(sessionId);
  const key = calibrationKey(profile);
  const prior = rt.calibrationFor === key ? rt.calibration : INITIAL_CALIBRATION;
  rt.usageObserved(
    promptTokens,
    observeUsage(prior, viewTokens + toolDefinitionTokens(deps, sessionId, profile.model), promptTokens),
    key,
  );
}
