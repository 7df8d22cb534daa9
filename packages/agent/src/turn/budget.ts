import { INITIAL_CALIBRATION, countMessageTokens, observeUsage } from '@threadline/context';
import type { ProviderProfile } from '@threadline/protocol';
import type { ToolRegistry } from '../tools/registry';
import type { TurnDeps } from './deps';

/**
 * The view's estimate is not what the provider counts: every request also carries the tool
 * definitions, and a model without a known tokenizer is estimated at chars/4 (numbers, code and
 * Chinese cost more). Left alone, the estimate says 60 % while the provider answers "context too
 * long". The budget adds the tool definitions and scales by the ratio the provider's reported
 * usage showed (SPEC §3.1), so the meter, the auto trigger and the compaction targets all speak
 * in the provider's tokens.
 */
export interface TokenBudget {
  /** Provider tokens per estimated token, smoothed; 1 until the provider reported usage. */
  ratio: number;
  /** Whether the ratio (and the last reported usage) come from this profile and model. */
  learned: boolean;
  /** Estimated tokens of the tool definitions each request carries (not part of the view). */
  toolTokens: number;
  /** The window in the view's own units: what the engine compacts against. */
  viewWindow: number;
  /** What the provider would count for a view whose estimate is `viewTokens`. */
  providerTokens(viewTokens: number): number;
}

/** What the budget reads: the session's tools and its learned ratio. */
export type BudgetDeps = Pick<TurnDeps, 'toolsFor' | 'runtime'>;

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

/** Calibration is learned per profile and model: a switch must not carry a ratio over. */
function calibrationKey(profile: ProviderProfile): string {
  return `${profile.id}\u0000${profile.model}`;
}

export function tokenBudget(deps: BudgetDeps, sessionId: string, profile: ProviderProfile): TokenBudget {
  const rt = deps.runtime(sessionId);
  const learned = rt.calibrationFor === calibrationKey(profile);
  const ratio = learned ? rt.calibration.ratio : 1;
  const toolTokens = toolDefinitionTokens(deps, sessionId, profile.model);
  return {
    ratio,
    learned,
    toolTokens,
    viewWindow: Math.max(1, Math.floor(profile.contextWindow / ratio) - toolTokens),
    providerTokens: (viewTokens) => Math.round((viewTokens + toolTokens) * ratio),
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
  const rt = deps.runtime(sessionId);
  const key = calibrationKey(profile);
  const prior = rt.calibrationFor === key ? rt.calibration : INITIAL_CALIBRATION;
  rt.providerPromptTokens = promptTokens;
  rt.calibration = observeUsage(prior, viewTokens + toolDefinitionTokens(deps, sessionId, profile.model), promptTokens);
  rt.calibrationFor = key;
}
