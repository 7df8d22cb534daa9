import type { TurnScope } from '../turn/deps';
import { runCompaction, type CompactionOutcome } from '../turn/compaction';

/**
 * trigger check (manual): `Please compact this conversation`, `/compact`, `/summarize`,
 * `/compact <instructions>`. Null when the text is an ordinary message.
 */
export function matchManualTrigger(
  scope: Pick<TurnScope, 'deps'>,
  text: string,
): { instructions: string | null } | null {
  return scope.deps.engine.parseManualTrigger(text);
}

/** A manual compaction ignores the minimum message count and produces no model reply. */
export async function compactOnRequest(scope: TurnScope, instructions: string | null): Promise<CompactionOutcome> {
  const outcome = await runCompaction({
    ...scope,
    trigger: 'manual',
    instructions,
    targetTokens: null,
    signal: scope.signal,
  });
  if (outcome.ok) {
    // Compaction works again: a paused auto compaction resumes (the user's way to unpause it).
    const rt = scope.deps.runtime(scope.sessionId);
    rt.consecutiveAutoFailures = 0;
    rt.autoPaused = false;
  }
  return outcome;
}
