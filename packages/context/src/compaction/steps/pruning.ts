import type { StepContext, StepDetail, StepSpec } from '../types';
import { seqOfPos, type WorkState } from '../state';
import { buildUnits, headEnd, isExempt, tailStart, type Unit } from '../units';
import { isChitchat } from '../userWords';

type Of<N extends StepSpec['name']> = Extract<StepSpec, { name: N }>;

/** `strip_chitchat`: hides chit-chat user messages, never the latest user message. */
export function stripChitchat(state: WorkState, ctx: StepContext): StepDetail {
  const units = buildUnits(state.entries, ctx.protectedTools);
  let lastUser = -1;
  units.forEach((u, i) => {
    if (u.isUser) lastUser = i;
  });
  const ids = units.filter((u, i) => u.isUser && i !== lastUser && isChitchat(u.first.content)).flatMap((u) => u.ids);
  return { hidden: state.hide(ids) };
}

const PREVIEW_CHARS = 200;

export function prunedPlaceholder(tokens: number, content: string, toolCallId: string): string {
  const flat = content.replace(/\s+/g, ' ').trim();
  const preview = flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
  return `[Tool output pruned by compaction: ${tokens} tokens. Preview: ${preview}] Read it in full with read_tool_output(id: "${toolCallId}").`;
}

/**
 * `prune_tool_outputs`: old tool outputs (before the protected tail) are replaced by a short
 * placeholder with a preview; the placeholder keeps the tool_call_id, so the pair stays whole.
 */
export function pruneToolOutputs(state: WorkState, ctx: StepContext, spec: Of<'prune_tool_outputs'>): StepDetail {
  const units = buildUnits(state.entries, ctx.protectedTools);
  const minTokens = spec.minTokens ?? 100;
  const victims: { id: string; anchor: number; toolCallId: string; name?: string; content: string; tokens: number }[] =
    [];
  for (const u of units.slice(0, tailStart(units, spec.keepLast))) {
    if (u.isProtected) continue;
    for (const i of u.idx) {
      const e = state.entries[i]!;
      const m = e.msg;
      if (m.role !== 'tool' || m.tool_call_id === undefined || e.tokens <= minTokens) continue;
      if (m.meta?.['placeholderFor'] !== undefined) continue;
      victims.push({
        id: m.id,
        anchor: seqOfPos(e.pos),
        toolCallId: m.tool_call_id,
        name: m.name,
        content: m.content ?? '',
        tokens: e.tokens,
      });
    }
  }
  let saved = 0;
  for (const v of victims) {
    state.hide([v.id]);
    const [ph] = state.insert(v.anchor, [
      {
        role: 'tool',
        kind: 'normal',
        tool_call_id: v.toolCallId,
        name: v.name,
        content: prunedPlaceholder(v.tokens, v.content, v.toolCallId),
        meta: { placeholderFor: v.id },
      },
    ]);
    saved += v.tokens - (ph?.tokens ?? 0);
  }
  return { hidden: victims.length, inserted: victims.length, pruned: victims.length, estimatedSaved: saved };
}

/** `keep_head_tail`: chooses the middle range (whole units) for the next folding step. */
export function keepHeadTail(state: WorkState, ctx: StepContext, spec: Of<'keep_head_tail'>): StepDetail {
  const units = buildUnits(state.entries, ctx.protectedTools);
  const start = headEnd(units, spec.head);
  const end = Math.max(start, tailStart(units, spec.tail));
  const middle = units.slice(start, end);
  state.selection = new Set(middle.flatMap((u) => u.ids));
  if (middle.length === 0) return { skipped: 'nothing_between_head_and_tail', selected: 0 };
  return { selected: middle.reduce((n, u) => n + u.ids.length, 0), head: spec.head, tail: spec.tail };
}

/**
 * `brute_prune`: keep the last `keep` messages (whole units) plus the initial
 * context, protected tools, turn-aborted markers and summaries. As the last resort it halves
 * `keep` while the view is still over the target.
 */
export function brutePrune(state: WorkState, ctx: StepContext, spec: Of<'brute_prune'>): StepDetail {
  let keep = spec.keep;
  let hidden = 0;
  for (;;) {
    const units = buildUnits(state.entries, ctx.protectedTools);
    const start = tailStart(units, keep);
    const drop = units.slice(0, start).filter((u: Unit) => !isExempt(u) && !u.isCompactionInsert);
    hidden += state.hide(drop.flatMap((u) => u.ids));
    if (state.total() <= ctx.target || keep <= 1) break;
    keep = Math.floor(keep / 2);
  }
  return { hidden, keptLast: keep };
}
