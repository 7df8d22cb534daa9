import type { CompactionPreview } from '@threadline/protocol';
import { compact, type CompactInput, type CompactResult } from './compact';
import type { Summarizer } from './prompts';

/**
 * Stands in for the model in a preview: a deterministic text of the length a summary of this
 * input would likely have (a quarter of the input, capped at the detail's budget), so the
 * preview's token figures are close to the real run without spending a model call.
 */
export const dryRunSummarizer: Summarizer = async (req) => {
  const chars = req.messages.reduce((n, m) => n + (m.content?.length ?? 0), 0) + req.previousSummaries.join('').length;
  const tokens = Math.max(40, Math.min(req.maxSummaryTokens, Math.round(chars / 16)));
  const head = `[preview] A summary of ${req.messages.length} messages will be written here.`;
  return `${head} ${'summary '.repeat(Math.max(0, tokens - 15))}`.trim();
};

/**
 * previewCompaction = compact() with the dry-run summarizer: what would be hidden and inserted,
 * and tokens before/after, without a model call (`compaction.preview`). Deterministic
 * strategies (cfpm_memory_v1) preview exactly what a run would do.
 */
export async function previewCompaction(
  input: Omit<CompactInput, 'summarizer'>,
): Promise<CompactionPreview & { result: CompactResult }> {
  const result = await compact({ ...input, summarizer: dryRunSummarizer });
  return {
    strategy: result.strategy,
    ok: result.ok,
    reason: result.reason,
    hiddenIds: result.hiddenIds,
    inserted: result.inserted.map((m) => ({ kind: m.kind, content: m.content ?? '' })),
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    steps: result.steps,
    result,
  };
}
