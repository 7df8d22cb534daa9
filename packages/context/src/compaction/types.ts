import type { ChatMessage, MemoryFact, Strategy, Trigger } from '@threadline/protocol';
import type { Summarizer, SummaryDetail } from './prompts';

export const STEP_NAMES = [
  'strip_chitchat',
  'prune_tool_outputs',
  'drop_monologues',
  'memory_checkpoint',
  'summarize',
  'keep_head_tail',
  'rebuild',
  'brute_prune',
  'cut_tool_outputs',
  'cut_messages',
] as const;
export type StepName = (typeof STEP_NAMES)[number];

/** Which messages a folding step (summarize, rebuild) replaces. */
export type FoldRange =
  | { kind: 'selection' } // what keep_head_tail chose
  | { kind: 'olderThan'; keepLast: number } // everything but the last N messages
  | { kind: 'oldest'; count: number }; // the oldest N messages that are still visible

export type StepSpec =
  | { name: 'strip_chitchat' }
  | { name: 'prune_tool_outputs'; keepLast: number; minTokens?: number }
  | { name: 'drop_monologues'; which: 'oldest' | 'recent' | 'all'; minSegmentsToKeep?: number }
  | { name: 'memory_checkpoint' }
  | { name: 'summarize'; range: FoldRange; detail?: SummaryDetail; dropToolOutputs?: boolean; optional?: boolean }
  | { name: 'keep_head_tail'; head: number; tail: number }
  | { name: 'rebuild'; keepLast: number; userTokenBudget?: number; detail?: SummaryDetail }
  | { name: 'brute_prune'; keep: number }
  | { name: 'cut_tool_outputs' }
  | { name: 'cut_messages' };

/** What a step adds to its report besides the token figures. */
export type StepDetail = { hidden?: number; inserted?: number; skipped?: string } & Record<string, unknown>;

/** Everything a step may use. No I/O: the summarizer, clock and ids come from the caller. */
export interface StepContext {
  strategy: Strategy | 'custom';
  trigger: Trigger;
  model: string;
  window: number;
  target: number;
  instructions: string | null;
  summarizer: Summarizer | null;
  facts: readonly MemoryFact[];
  protectedTools: readonly string[];
  /** The task messages of the whole history (userWords.taskMessageIds): always carried. */
  taskIds: ReadonlySet<string>;
  /** CFPM checkpoint text of the hidden messages (the memory module's buildCheckpointSnapshot). */
  checkpoint: (hidden: ChatMessage[], facts: MemoryFact[]) => string;
}
