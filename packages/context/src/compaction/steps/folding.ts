import type { StepSpec, StepContext, StepDetail } from '../types';
import type { WorkState } from '../state';
import { SUMMARY_PREFIX } from '../prompts';
import { buildUnits, isExempt, tailStart } from '../units';
import {
  applyFold,
  previousInserts,
  previousSummaryTexts,
  rangeUnits,
  summarizeWithFallback,
  unitMessages,
} from './fold';
import { errorMessage } from '@threadline/protocol';

type Of<N extends StepSpec['name']> = Extract<StepSpec, { name: N }>;

/** `summarize`: a model summary of the range replaces it (seeds 000, 002, 004). */
export async function summarize(state: WorkState, ctx: StepContext, spec: Of<'summarize'>): Promise<StepDetail> {
  const units = buildUnits(state.entries, ctx.protectedTools);
  const fold = rangeUnits(units, state, spec.range);
  if (fold.length === 0) return { skipped: 'nothing_to_summarize' };
  if (!ctx.summarizer) return { skipped: 'no_summarizer' };
  const prev = previousInserts(units);
  const detail = spec.detail ?? 'standard';
  let text: string;
  let pct: number;
  try {
    const r = await summarizeWithFallback(
      ctx,
      unitMessages(state, fold),
      previousSummaryTexts(state, prev),
      detail,
      spec.dropToolOutputs ?? false,
    );
    text = r.text;
    pct = r.toolOutputsRemovedPercent;
  } catch (err) {
    if (spec.optional) return { skipped: 'summary_failed', error: errorMessage(err) };
    throw err;
  }
  state.summaries.push(text);
  return {
    ...applyFold(state, ctx, fold, prev, { kind: 'summary', content: `${SUMMARY_PREFIX}\n\n${text}` }),
    toolOutputsRemovedPercent: pct,
    detail,
  };
}

/** `memory_checkpoint`: the CFPM deterministic snapshot of the range, no model call (seed 000). */
export async function memoryCheckpoint(state: WorkState, ctx: StepContext): Promise<StepDetail> {
  const units = buildUnits(state.entries, ctx.protectedTools);
  const fold = rangeUnits(units, state, { kind: 'selection' });
  if (fold.length === 0) return { skipped: 'nothing_to_checkpoint' };
  const prev = previousInserts(units);
  const hiddenMessages = unitMessages(state, [...prev.filter((u) => u.first.kind !== 'continuation'), ...fold]);
  const text = ctx.checkpoint(hiddenMessages, [...ctx.facts]);
  state.summaries.push(text);
  return applyFold(state, ctx, fold, prev, { kind: 'memory_snapshot', content: text });
}

/**
 * `rebuild` (Codex): before the kept tail, the view keeps only initial context, user messages
 * (recent first, within the budget), protected tool results and turn-aborted markers; the rest
 * is summarized. Earlier summaries are replaced by the new one.
 */
export async function rebuild(state: WorkState, ctx: StepContext, spec: Of<'rebuild'>): Promise<StepDetail> {
  const units = buildUnits(state.entries, ctx.protectedTools);
  const before = units.slice(0, tailStart(units, spec.keepLast));
  let budget = spec.userTokenBudget ?? 20_000;
  const keepUsers = new Set<number>();
  for (let i = before.length - 1; i >= 0; i--) {
    const u = before[i]!;
    if (!u.isUser || u.tokens > budget) continue;
    budget -= u.tokens;
    keepUsers.add(i);
  }
  const fold = before.filter((u, i) => !isExempt(u) && !u.isCompactionInsert && !keepUsers.has(i));
  if (fold.length === 0) return { skipped: 'nothing_to_rebuild' };
  if (!ctx.summarizer) return { skipped: 'no_summarizer' };
  const prev = previousInserts(units);
  const r = await summarizeWithFallback(
    ctx,
    unitMessages(state, fold),
    previousSummaryTexts(state, prev),
    spec.detail ?? 'standard',
    false,
  );
  state.summaries.push(r.text);
  return {
    ...applyFold(state, ctx, fold, prev, { kind: 'summary', content: `${SUMMARY_PREFIX}\n\n${r.text}` }),
    userMessagesKept: keepUsers.size,
    toolOutputsRemovedPercent: r.toolOutputsRemovedPercent,
  };
}
