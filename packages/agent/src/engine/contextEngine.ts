import {
  buildSummaryRequestMessages,
  buildView,
  capFullOutput,
  compact,
  countMessageTokens,
  dryRunSummarizer,
  isContextLimitError,
  parseManualTrigger,
  shouldAutoCompact,
  truncateToolOutput,
} from '@threadline/context';
import type { CompactionPlan, Engine } from '../ports';
import { memoryEngine } from './memoryEngine';

/** The Engine port over @threadline/context (SPEC §3–§5). */
export const contextEngine: Engine = {
  countMessageTokens: (m, model) => countMessageTokens(m, model),
  truncateToolOutput: (text, s, model, outputId) => {
    const r = truncateToolOutput(text, { policy: s.policy, maxTokens: s.maxTokens, model, outputId });
    return { content: r.text, truncated: r.truncated };
  },
  capFullOutput: (text) => capFullOutput(text).text,
  buildView: (input) => {
    const v = buildView(input);
    return { messages: v.messages, tokens: v.tokens, breakdown: v.breakdown };
  },
  compact: async (input): Promise<CompactionPlan> => {
    const r = await compact({
      history: input.history,
      compactions: input.compactions,
      strategy: input.strategy,
      model: input.model,
      window: input.window,
      target: input.targetTokens ?? undefined,
      // priority_chain's auto target is min(0.85, threshold) of the window (seed 003).
      threshold: input.threshold,
      trigger: input.trigger,
      instructions: input.instructions,
      summarizer: input.dryRun
        ? dryRunSummarizer
        : (req) => input.summarize(buildSummaryRequestMessages(req), req.instructions),
      systemPrompt: input.systemPrompt,
      memoryBlock: input.memoryBlock,
      memoryFacts: input.facts,
      now: () => input.now,
      newId: input.newId,
      sessionId: input.history[0]?.sessionId,
      onStep: input.onStep,
    });
    return {
      ok: r.ok,
      reason: r.reason,
      hiddenIds: r.hiddenIds,
      inserted: r.inserted.map((m) => ({
        id: m.id,
        role: m.role,
        kind: m.kind,
        content: m.content ?? '',
        meta: m.meta,
      })),
      steps: r.steps,
      tokensBefore: r.tokensBefore,
      tokensAfter: r.tokensAfter,
      summary: r.summary,
      compactionId: r.compactionId,
      afterSeq: r.afterSeq,
    };
  },
  shouldAutoCompact: (tokens, window, threshold) => shouldAutoCompact({ total: tokens, window }, threshold),
  parseManualTrigger: (text) => parseManualTrigger(text),
  isContextLimitError: (err) => isContextLimitError(err),
  ...memoryEngine,
};
