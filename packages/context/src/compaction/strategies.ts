import type { Strategy, Trigger } from '@threadline/protocol';
import type { StepSpec } from './types';

/**
 * Every strategy is a list of step groups over the same primitives. Before each
 * group the runner stops if the view is at or under the target and something was already
 * reduced; the steps of one group always run together (keep_head_tail only picks a range).
 */
export type Plan = StepSpec[][];

export type ProgressiveLevel = 'NONE' | 'LIGHT' | 'MEDIUM' | 'HEAVY' | 'CRITICAL';

/** NONE < 70% ≤ LIGHT < 80% ≤ MEDIUM < 90% ≤ HEAVY < 95% ≤ CRITICAL. */
export function progressiveLevel(usage: number): ProgressiveLevel {
  if (usage >= 0.95) return 'CRITICAL';
  if (usage >= 0.9) return 'HEAVY';
  if (usage >= 0.8) return 'MEDIUM';
  if (usage >= 0.7) return 'LIGHT';
  return 'NONE';
}

const PROGRESSIVE_LEVELS: Record<Exclude<ProgressiveLevel, 'NONE'>, StepSpec[]> = {
  // keep the last 10, summarize what is older than 20 from the end, keep tool outputs
  LIGHT: [{ name: 'summarize', range: { kind: 'olderThan', keepLast: 20 }, detail: 'standard' }],
  // keep 6, summarize older than 10, drop tool outputs, shorter summary
  MEDIUM: [
    { name: 'prune_tool_outputs', keepLast: 6 },
    { name: 'summarize', range: { kind: 'olderThan', keepLast: 10 }, detail: 'short', dropToolOutputs: true },
  ],
  // keep 4, summarize older than 6, drop tool outputs
  HEAVY: [
    { name: 'prune_tool_outputs', keepLast: 4 },
    { name: 'summarize', range: { kind: 'olderThan', keepLast: 6 }, detail: 'brief', dropToolOutputs: true },
  ],
  // keep 2, summarize everything else
  CRITICAL: [{ name: 'summarize', range: { kind: 'olderThan', keepLast: 2 }, detail: 'ultra', dropToolOutputs: true }],
};
const LEVEL_ORDER = ['LIGHT', 'MEDIUM', 'HEAVY', 'CRITICAL'] as const;

/**
 * When the messages legacy and CFPM keep are themselves too big for the target (a few huge tool
 * outputs in a small local model's window), folding the middle is not enough and the compaction
 * would fail every time, auto and recovery alike. Then the outputs in the kept range, all but the
 * last two units', become placeholders the model can page back with read_tool_output.
 */
const KEPT_TAIL_FALLBACK: StepSpec[] = [{ name: 'prune_tool_outputs', keepLast: 2 }];

/** Minimum agent-visible messages before an automatic run (manual runs ignore it). */
export const AUTO_MIN_MESSAGES: Record<Strategy, number> = {
  legacy_segmented: 20,
  cfpm_memory_v1: 12,
  progressive: 0,
  priority_chain: 0,
};

/** The plan of a strategy for a view at `usage` (tokens / window). */
export function planFor(strategy: Strategy, usage: number, trigger: Trigger): Plan {
  switch (strategy) {
    case 'legacy_segmented':
      return [
        [
          { name: 'keep_head_tail', head: 3, tail: 10 },
          { name: 'summarize', range: { kind: 'selection' } },
        ],
        KEPT_TAIL_FALLBACK,
      ];
    case 'cfpm_memory_v1':
      return [[{ name: 'keep_head_tail', head: 2, tail: 8 }, { name: 'memory_checkpoint' }], KEPT_TAIL_FALLBACK];
    case 'progressive': {
      let level = progressiveLevel(usage);
      if (level === 'NONE' && trigger !== 'auto') level = 'LIGHT';
      if (trigger === 'recovery' && (level === 'LIGHT' || level === 'NONE')) level = 'MEDIUM';
      if (level === 'NONE') return [];
      return LEVEL_ORDER.slice(LEVEL_ORDER.indexOf(level)).map((l) => PROGRESSIVE_LEVELS[l]);
    }
    case 'priority_chain':
      return [
        [{ name: 'strip_chitchat' }],
        [{ name: 'drop_monologues', which: 'oldest' }],
        [{ name: 'summarize', range: { kind: 'oldest', count: 20 }, optional: true }],
        [{ name: 'drop_monologues', which: 'recent' }],
        [{ name: 'brute_prune', keep: 50 }],
      ];
  }
}

/**
 * An explicit request (`/compact`, the Compact button) compacts whenever there is something to
 * hide, whatever the usage: when the strategy's own plan changed nothing (a short session under
 * every level), everything but the latest exchange is folded the strategy's way.
 */
export function manualFallback(strategy: Strategy): StepSpec[] {
  if (strategy === 'cfpm_memory_v1')
    return [{ name: 'keep_head_tail', head: 0, tail: 2 }, { name: 'memory_checkpoint' }];
  return [{ name: 'summarize', range: { kind: 'olderThan', keepLast: 2 } }];
}
