import { truncateToolOutput } from '../../truncate/truncate';
import { seqOfPos, type WorkState } from '../state';
import { buildUnits } from '../units';
import type { StepContext, StepDetail } from '../types';

/** What a cut output keeps (head and tail, with the marker in between). */
export const CUT_KEEP_TOKENS = 300;

/**
 * `cut_tool_outputs` (best effort, after every strategy's own steps): the oldest tool outputs
 * still in the view, the kept tail included, are cut to their head and tail with the
 * `…N tokens truncated…` marker (pageable with read_tool_output), oldest first, until the view
 * fits. The call keeps its result, so no pair is split; protected tools are never cut.
 */
export function cutToolOutputs(state: WorkState, ctx: StepContext): StepDetail {
  const units = buildUnits(state.entries, ctx.protectedTools);
  const victims: { id: string; anchor: number; toolCallId: string; name?: string; content: string }[] = [];
  for (const u of units) {
    if (u.isProtected) continue;
    for (const i of u.idx) {
      const e = state.entries[i]!;
      const m = e.msg;
      if (m.role !== 'tool' || m.tool_call_id === undefined || e.tokens <= CUT_KEEP_TOKENS * 1.5) continue;
      victims.push({
        id: m.id,
        anchor: seqOfPos(e.pos),
        toolCallId: m.tool_call_id,
        name: m.name,
        content: m.content ?? '',
      });
    }
  }
  let cut = 0;
  for (const v of victims) {
    if (state.total() <= ctx.target) break;
    const r = truncateToolOutput(v.content, {
      policy: 'tokens',
      maxTokens: CUT_KEEP_TOKENS,
      model: ctx.model,
      outputId: v.toolCallId,
    });
    if (!r.truncated) continue;
    state.hide([v.id]);
    state.insert(v.anchor, [
      {
        role: 'tool',
        kind: 'normal',
        tool_call_id: v.toolCallId,
        name: v.name,
        content: r.text,
        meta: { placeholderFor: v.id },
      },
    ]);
    cut++;
  }
  return { hidden: cut, inserted: cut, cut };
}
