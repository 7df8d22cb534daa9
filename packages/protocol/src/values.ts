/**
 * Plain values and functions of the protocol that need no schema. Their modules (settings.ts,
 * errors.ts) re-export them; code that needs only these (the context engine's compaction path)
 * loads no zod schema, which a fresh process would otherwise build, and parse DEFAULT_SETTINGS,
 * at start-up.
 */

export const STRATEGIES = ['legacy_segmented', 'cfpm_memory_v1', 'progressive', 'priority_chain'] as const;

/**
 * Whether a compaction strategy keeps session memory: learns facts as the agent works and gives
 * the model their block (CFPM's lifecycle, the priority chain's digest). Under the others the
 * Memory panel holds only what the user adds.
 */
export function strategyKeepsMemory(strategy: (typeof STRATEGIES)[number]): boolean {
  return strategy === 'cfpm_memory_v1' || strategy === 'priority_chain';
}

/**
 * Whether an auto-compaction threshold turns auto compaction on: a fraction strictly between 0
 * and 1. Anything else (≤ 0, ≥ 1, not a number) turns it off.
 */
export function isAutoThreshold(threshold: unknown): threshold is number {
  return typeof threshold === 'number' && threshold > 0 && threshold < 1;
}

/** The message of anything thrown: an Error's own message, else the value as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
