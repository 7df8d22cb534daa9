/**
 * The tasks a work-pool worker runs (pool/pool.ts), by name: each takes plain data and the
 * host (the main thread's callbacks) and returns plain data. The main-thread side of each is in
 * worker/offThread.ts (and tokens/encoder.ts, truncate/truncate.ts for counting and truncation).
 */
import { compact, type CompactInput, type CompactResult } from '../compaction/compact';
import type { SummarizeRequest } from '../compaction/prompts';
import type { StepName } from '../compaction/types';
import { refreshMemory } from '../memory/refresh';
import type { RefreshInput, RefreshResult } from '../memory/types';
import { countTextTokens } from '../tokens/encoder';
import { truncateToolOutput, type TruncateOptions, type TruncateResult } from '../truncate/truncate';
import type { TaskHost } from '../pool/host';

/** CompactInput as plain data: the callbacks become flags (the host answers them), the clock a value. */
export type CompactPayload = Omit<
  CompactInput,
  'summarizer' | 'checkpoint' | 'now' | 'newId' | 'tokenCache' | 'onStep'
> & { now: number; summarizer: boolean; newId: boolean; onStep: boolean };

/** RefreshInput as plain data: ids come from the host. */
export type RefreshPayload = Omit<RefreshInput, 'newId'>;

export const tasks = {
  countText: (p: { text: string; model: string }): number => countTextTokens(p.text, p.model),
  truncate: (p: { text: string; opts: TruncateOptions }): TruncateResult => truncateToolOutput(p.text, p.opts),
  compact: (p: CompactPayload, host: TaskHost): Promise<CompactResult> => {
    const { now, summarizer, newId, onStep, ...rest } = p;
    return compact({
      ...rest,
      now: () => now,
      ...(newId ? { newId: () => host.callSync('newId') as string } : {}),
      summarizer: summarizer ? (r: SummarizeRequest) => host.call('summarize', r) as Promise<string> : null,
      ...(onStep ? { onStep: (step: StepName, tokens: number) => host.notify('onStep', { step, tokens }) } : {}),
    });
  },
  refreshMemory: (p: RefreshPayload, host: TaskHost): RefreshResult =>
    refreshMemory({ ...p, newId: () => host.callSync('newId') as string }),
} satisfies Record<string, (payload: never, host: TaskHost) => unknown>;

export type TaskName = keyof typeof tasks;
