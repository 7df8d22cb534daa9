import { parseManualTrigger, type ManualTrigger } from '@threadline/context';
import type { SessionWork } from './sessionWork';
import { runCompaction, type CompactionOutcome } from './compaction';

/** The user's text as it arrived, with its manual compaction phrase parsed once, right there. */
export interface UserRequest {
  text: string;
  /**
   * `Please compact this conversation`, `/compact`, `/summarize`, `/compact <instructions>`;
   * null when the text is an ordinary message.
   */
  manual: ManualTrigger | null;
}

export function userRequest(text: string): UserRequest {
  return { text, manual: parseManualTrigger(text) };
}

/** A manual compaction ignores the minimum message count and produces no model reply. */
export async function compactOnRequest(work: SessionWork, instructions: string | null): Promise<CompactionOutcome> {
  const outcome = await runCompaction(work, { trigger: 'manual', instructions, targetTokens: null });
  if (outcome.ok) {
    // Compaction works again: a paused auto compaction resumes (the user's way to unpause it).
    work.state.compactionWorks();
  }
  return outcome;
}
