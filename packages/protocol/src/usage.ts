import * as z from 'zod';

/** US dollars per 1,000,000 tokens: prompt tokens read fresh, prompt tokens read from the cache, answer. */
export const ModelPriceSchema = z.object({
  input: z.number().nonnegative().max(10_000),
  cachedInput: z.number().nonnegative().max(10_000),
  output: z.number().nonnegative().max(10_000),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/**
 * Shipped list prices of common models (USD per 1M tokens, the providers' published prices of
 * 2025; a profile's own price for a model replaces them). A model that is not here and has no
 * price of its profile has no cost: it shows "unknown", never a guess.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  'deepseek-chat': { input: 0.28, cachedInput: 0.028, output: 0.42 },
  'deepseek-reasoner': { input: 0.28, cachedInput: 0.028, output: 0.42 },
  'openai/gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'openai/gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'openai/gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'openai/gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  'openai/gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'deepseek/deepseek-chat': { input: 0.28, cachedInput: 0.028, output: 0.42 },
  'anthropic/claude-sonnet-4': { input: 3, cachedInput: 0.3, output: 15 },
  'anthropic/claude-opus-4': { input: 15, cachedInput: 1.5, output: 75 },
  'anthropic/claude-3.5-haiku': { input: 0.8, cachedInput: 0.08, output: 4 },
});

/** The price of a model: the profile's own, else the shipped default, else null (unknown). */
export function priceFor(model: string, profilePrices: Readonly<Record<string, ModelPrice>> = {}): ModelPrice | null {
  return profilePrices[model] ?? DEFAULT_MODEL_PRICES[model] ?? null;
}

/** Dollars of one call, or null when the price is unknown. */
export function callCost(
  usage: { promptTokens: number; cachedTokens: number; completionTokens: number },
  price: ModelPrice | null,
): number | null {
  if (!price) return null;
  const fresh = Math.max(0, usage.promptTokens - usage.cachedTokens);
  return (fresh * price.input + usage.cachedTokens * price.cachedInput + usage.completionTokens * price.output) / 1e6;
}

/** What a model call was for: a turn's request, a compaction's summary, the session's title. */
export const CallKindSchema = z.enum(['chat', 'summary', 'title']);
export type CallKind = z.infer<typeof CallKindSchema>;

/** Tokens and cost of some model calls. `cost` is null when any of them has no known price. */
export const UsageTotalsSchema = z.object({
  calls: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative(),
  cachedTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  cost: z.number().nonnegative().nullable(),
  /** Calls whose model has no price (their tokens are counted, their cost is not). */
  unpricedCalls: z.number().int().nonnegative(),
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

export const EMPTY_USAGE_TOTALS: UsageTotals = {
  calls: 0,
  promptTokens: 0,
  cachedTokens: 0,
  completionTokens: 0,
  cost: 0,
  unpricedCalls: 0,
};

/** What a session's helpers (the delegate tool) took, apart from its own calls. */
export const HelperCostSchema = z.object({
  count: z.number().int().nonnegative(),
  total: UsageTotalsSchema,
  /** Tokens of their reports in the parent's context. */
  returnedTokens: z.number().int().nonnegative(),
});
export type HelperCost = z.infer<typeof HelperCostSchema>;

/** What a session's model calls took: all of them, the summaries apart, and per compaction. */
export const SessionCostSchema = z.object({
  sessionId: z.string(),
  total: UsageTotalsSchema,
  summaries: UsageTotalsSchema,
  /** The summary calls of each compaction (by compaction id): what its divider says it cost. */
  compactions: z.record(z.string(), UsageTotalsSchema),
  /** When the last call was answered (ms), for the cache's time to live; null before any. */
  lastCallAt: z.number().int().nullable(),
  /** Its helpers' calls (not in `total`), and their reports' tokens; absent when it had none. */
  helpers: HelperCostSchema.optional(),
});
export type SessionCost = z.infer<typeof SessionCostSchema>;

export const DailyUsageRowSchema = UsageTotalsSchema.extend({
  /** The local day (YYYY-MM-DD) in the time zone the caller named. */
  day: z.string(),
  model: z.string(),
});
export type DailyUsageRow = z.infer<typeof DailyUsageRowSchema>;

/** One price of a profile's table: its own, or the shipped default. */
export const PriceEntrySchema = z.object({
  model: z.string(),
  price: ModelPriceSchema,
  source: z.enum(['profile', 'default']),
});
export type PriceEntry = z.infer<typeof PriceEntrySchema>;

/**
 * What the next request of a session would cost if the provider's cache has expired: the whole
 * prompt read fresh. `warn` when the cache has likely expired (idle past the TTL) and the prompt
 * is over the setting's size.
 */
export const ResendEstimateSchema = z.object({
  sessionId: z.string(),
  /** ms since the last answer, null before any. */
  idleMs: z.number().int().nonnegative().nullable(),
  ttlMs: z.number().int().positive(),
  expired: z.boolean(),
  promptTokens: z.number().int().nonnegative(),
  /** The prompt at the fresh input price; null when the price is unknown. */
  cost: z.number().nonnegative().nullable(),
  /** The same prompt had the cache held (cached input price). */
  cachedCost: z.number().nonnegative().nullable(),
  warn: z.boolean(),
});
export type ResendEstimate = z.infer<typeof ResendEstimateSchema>;
