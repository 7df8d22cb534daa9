import type { TFunction } from 'i18next';
import type { UsageTotals } from '@threadline/protocol';

/** Dollars, with enough digits to tell small amounts apart; null (no price) is "unknown", never 0. */
export function formatCost(cost: number | null, t: TFunction): string {
  if (cost === null) return t('cost.unknown');
  if (cost === 0) return '$0';
  if (cost < 0.01) return `$${cost.toFixed(4)}`;
  if (cost < 1) return `$${cost.toFixed(3)}`;
  return `$${cost.toFixed(2)}`;
}

/** Share of prompt tokens the provider read from its cache, 0–100. */
export function cacheRate(u: Pick<UsageTotals, 'promptTokens' | 'cachedTokens'>): number {
  return u.promptTokens > 0 ? Math.round((u.cachedTokens / u.promptTokens) * 100) : 0;
}
