import { toChatMessage, type ChatMessage } from '@threadline/protocol';
import { isContextLimitError } from '../../errors/contextLimit';
import {
  continuationInstruction,
  ELIDED_TOOL_OUTPUT,
  SUMMARY_PREFIX,
  SUMMARY_TOKEN_BUDGET,
  type SummaryDetail,
} from '../prompts';
import { seqOfPos, type WorkState } from '../state';
import { isExempt, tailStart, type Unit } from '../units';
import type { FoldRange, StepContext, StepDetail } from '../types';

/** Shares of tool outputs elided when the summary call itself overflows. */
export const TOOL_REMOVAL_STEPS = [0, 10, 20, 50, 100] as const;
export { ELIDED_TOOL_OUTPUT };

/** The units of a range that a folding step may hide (never system, protected or aborted markers). */
export function rangeUnits(units: readonly Unit[], state: WorkState, range: FoldRange): Unit[] {
  let picked: Unit[];
  if (range.kind === 'selection') {
    const sel = state.selection;
    picked = sel ? units.filter((u) => u.ids.some((id) => sel.has(id))) : [];
  } else if (range.kind === 'olderThan') {
    picked = units.slice(0, tailStart(units, range.keepLast));
  } else {
    picked = [];
    let n = 0;
    // Never the last unit: the active request stays verbatim.
    for (const u of units.slice(0, -1)) {
      if (isExempt(u) || u.isCompactionInsert) continue;
      if (n >= range.count) break;
      picked.push(u);
      n += u.ids.length;
    }
  }
  return picked.filter((u) => !isExempt(u) && !u.isCompactionInsert);
}

export function unitMessages(state: WorkState, units: readonly Unit[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const u of units) for (const i of u.idx) out.push(toChatMessage(state.entries[i]!.msg));
  return out;
}

/** Replaces pct% of tool outputs, starting from the middle of the range and moving outwards. */
export function elideToolOutputsMiddleOut(messages: readonly ChatMessage[], pct: number): ChatMessage[] {
  const toolIdx = messages.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
  const k = Math.ceil((toolIdx.length * pct) / 100);
  if (k === 0) return [...messages];
  const mid = (toolIdx.length - 1) / 2;
  const order = toolIdx
    .map((msgIndex, j) => ({ msgIndex, d: Math.abs(j - mid), j }))
    .sort((a, b) => a.d - b.d || a.j - b.j);
  const drop = new Set(order.slice(0, k).map((o) => o.msgIndex));
  return messages.map((m, i) => (drop.has(i) ? { ...m, content: ELIDED_TOOL_OUTPUT } : m));
}

/** Thrown when every fallback level still overflowed. */
export class SummaryOverflowError extends Error {
  constructor() {
    super('the summary request overflowed the context window even with all tool outputs removed');
    this.name = 'SummaryOverflowError';
  }
}

export async function summarizeWithFallback(
  ctx: StepContext,
  messages: ChatMessage[],
  previousSummaries: string[],
  detail: SummaryDetail,
  dropToolOutputs: boolean,
): Promise<{ text: string; toolOutputsRemovedPercent: number }> {
  const summarizer = ctx.summarizer;
  if (!summarizer) throw new Error('no summarizer configured');
  for (const pct of TOOL_REMOVAL_STEPS) {
    if (dropToolOutputs && pct < 100) continue;
    try {
      const text = await summarizer({
        messages: elideToolOutputsMiddleOut(messages, pct),
        previousSummaries,
        instructions: ctx.instructions,
        detail,
        maxSummaryTokens: SUMMARY_TOKEN_BUDGET[detail],
        toolOutputsRemovedPercent: pct,
      });
      return { text: text.trim(), toolOutputsRemovedPercent: pct };
    } catch (err) {
      if (!isContextLimitError(err)) throw err;
    }
  }
  throw new SummaryOverflowError();
}

/** Earlier summaries and snapshots in the view: they are folded into the new one, never stacked. */
export function previousInserts(units: readonly Unit[]): Unit[] {
  return units.filter((u) => u.isCompactionInsert);
}

export function previousSummaryTexts(state: WorkState, prev: readonly Unit[]): string[] {
  const out: string[] = [];
  for (const u of prev) {
    const m = state.entries[u.idx[0]!]!.msg;
    if (m.kind === 'summary' || m.kind === 'memory_snapshot') {
      out.push((m.content ?? '').replace(SUMMARY_PREFIX, '').trim());
    }
  }
  return out;
}

export function anchorFor(state: WorkState, units: readonly Unit[]): number {
  let anchor = -1;
  for (const u of units) for (const i of u.idx) anchor = Math.max(anchor, seqOfPos(state.entries[i]!.pos));
  return anchor;
}

/**
 * Hides `fold` and the earlier compaction inserts, and inserts `first` (summary or snapshot) and
 * the continuation instruction at the end of the folded range.
 */
export function applyFold(
  state: WorkState,
  ctx: StepContext,
  fold: readonly Unit[],
  prev: readonly Unit[],
  first: { kind: 'summary' | 'memory_snapshot'; content: string },
): StepDetail {
  const anchor = anchorFor(state, fold);
  const hiddenCount = fold.reduce((n, u) => n + u.ids.length, 0);
  const ids = [...fold, ...prev].flatMap((u) => u.ids);
  const hidden = state.hide(ids);
  state.insert(anchor, [
    { role: 'user', kind: first.kind, content: first.content },
    {
      role: 'user',
      kind: 'continuation',
      content: continuationInstruction({ hiddenCount, strategy: ctx.strategy, hasSummary: first.kind === 'summary' }),
    },
  ]);
  return { hidden, inserted: 2, folded: prev.length };
}
