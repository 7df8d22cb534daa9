import { isAutoThreshold, type Strategy } from '@threadline/protocol';

/** After a compaction the view should sit well under the auto threshold: 60% of the window. */
export const DEFAULT_TARGET_RATIO = 0.6;
/** The priority chain runs at 85% and stops as soon as the view is under its target. */
export const PRIORITY_CHAIN_RATIO = 0.85;
/**
 * How far under the trigger an automatic priority_chain run aims. Stopping just under the trigger
 * made the next step or turn trigger it again: a compaction every few requests, each one a new
 * prompt the provider's cache has not seen (issue 24).
 */
export const PRIORITY_CHAIN_MARGIN = 0.1;

/**
 * Target of an automatic priority_chain run: (min(0.85, threshold) − 0.1) × window. Under a lower
 * auto threshold (the default 0.8) the chain must end under that threshold, and with room to grow
 * before it triggers again. A threshold that is absent or not in (0, 1) counts as 0.85.
 */
export function priorityChainTarget(window: number, threshold?: number | null): number {
  const t = isAutoThreshold(threshold) ? threshold : PRIORITY_CHAIN_RATIO;
  const ratio = Math.max(0.1, Math.round((Math.min(PRIORITY_CHAIN_RATIO, t) - PRIORITY_CHAIN_MARGIN) * 1000) / 1000);
  return Math.floor(window * ratio);
}

/** Recovery retries: 3, or 6 for CFPM. */
export const MAX_RECOVERY_ATTEMPTS: Record<Strategy, number> = {
  legacy_segmented: 3,
  cfpm_memory_v1: 6,
  progressive: 3,
  priority_chain: 3,
};
export { MAX_COMPACTION_ATTEMPTS_MESSAGE } from '../markers';
/** Consecutive failed compactions after which auto compaction pauses for the session. */
export const MAX_CONSECUTIVE_FAILURES = 3;

export function defaultTarget(window: number): number {
  return Math.floor(window * DEFAULT_TARGET_RATIO);
}

/** Each recovery attempt aims lower: 50%, 40%, 30%… of the window (never under 10%). */
export function recoveryTarget(window: number, attempt: number): number {
  return Math.floor(window * Math.max(0.1, 0.5 - 0.1 * Math.max(0, attempt - 1)));
}

/**
 * Auto, pre-reply: compact when usage ≥ threshold. A threshold ≤ 0 or ≥ 1 disables it (AGIME).
 * `usage` is a fraction, or the view's tokens and the window.
 */
export function shouldAutoCompact(usage: number | { total: number; window: number }, threshold: number): boolean {
  if (!isAutoThreshold(threshold)) return false;
  const ratio = typeof usage === 'number' ? usage : usage.window > 0 ? usage.total / usage.window : 0;
  return Number.isFinite(ratio) && ratio >= threshold;
}

/** The exact phrases of a manual compaction; the compact button sends the first. */
export const MANUAL_COMPACT_PHRASES = ['Please compact this conversation', '/compact', '/summarize'] as const;

export interface ManualTrigger {
  instructions: string | null;
}

/**
 * A user message that asks for compaction: one of the exact phrases (trimmed), or
 * `/compact <instructions>`. Anything else (including `/compaction`) is an ordinary message.
 */
export function parseManualTrigger(text: string): ManualTrigger | null {
  const t = text.trim();
  if ((MANUAL_COMPACT_PHRASES as readonly string[]).includes(t)) return { instructions: null };
  const m = /^\/compact\s+([\s\S]+)$/.exec(t);
  if (m) return { instructions: m[1]!.trim() };
  return null;
}

/**
 * A compaction that frees less than this share of the window does not matter: the next one waits
 * until the view has grown by as much again (no compaction loops, each breaking the prompt cache).
 */
export const MIN_USEFUL_GAIN = 0.05;

/** The last automatic compaction of a session, as the next auto trigger weighs it. */
export interface LastAutoCompaction {
  tokensBefore: number;
  /** The view right after it (in the same units as the view the trigger reads). */
  tokensAfter: number;
}

/**
 * Whether the auto trigger holds back although usage is over the threshold: the last automatic
 * compaction freed less than MIN_USEFUL_GAIN of the window and the view has not grown by that much
 * since. (Recovery, when the provider refuses the request, is not held.)
 */
export function autoCompactionHeld(last: LastAutoCompaction | null, viewTokens: number, window: number): boolean {
  if (!last || !(window > 0)) return false;
  const step = MIN_USEFUL_GAIN * window;
  return last.tokensBefore - last.tokensAfter < step && viewTokens < last.tokensAfter + step;
}
