import type { StepContext, StepDetail, StepSpec } from '../types';
import type { WorkState } from '../state';
import { buildUnits, isExempt, type Unit } from '../units';

type Of<N extends StepSpec['name']> = Extract<StepSpec, { name: N }>;

/** A ProbeAgent segment: a user message and everything up to the next one. */
export interface Segment {
  units: Unit[];
}

/**
 * Segments of the view; the prelude before the first user message is not a segment. `starts`
 * (view positions of the user messages the compaction started from) keeps a segment a segment
 * even when strip_chitchat already hid its short opening request.
 */
export function segmentsOf(
  units: readonly Unit[],
  unitPos?: (u: Unit) => number,
  starts?: readonly number[],
): Segment[] {
  if (!unitPos || !starts) {
    const segs: Segment[] = [];
    for (const u of units) {
      if (u.isUser) segs.push({ units: [u] });
      else if (segs.length > 0) segs[segs.length - 1]!.units.push(u);
    }
    return segs;
  }
  const byStart = new Map<number, Segment>();
  let k = 0;
  for (const u of units) {
    const p = unitPos(u);
    while (k < starts.length && starts[k]! <= p) k++;
    if (k === 0) continue; // prelude
    let seg = byStart.get(k);
    if (!seg) byStart.set(k, (seg = { units: [] }));
    seg.units.push(u);
  }
  return [...byStart.values()];
}

/** The segment's final answer: its last plain assistant reply, else its last unit. */
function finalAnswer(seg: Segment): Unit | undefined {
  for (let i = seg.units.length - 1; i >= 0; i--) {
    const u = seg.units[i]!;
    if (u.first.role === 'assistant' && !u.first.tool_calls?.length) return u;
  }
  const last = seg.units[seg.units.length - 1];
  return last && !last.isUser ? last : undefined;
}

/** What drop_monologues hides of a completed segment: all but the user message and final answer. */
export function monologueOf(seg: Segment): Unit[] {
  const fin = finalAnswer(seg);
  return seg.units.filter((u) => !u.isUser && u !== fin && !isExempt(u) && !u.isCompactionInsert);
}

/**
 * `drop_monologues`: completed segments lose their intermediate assistant monologue and tool
 * traffic, oldest first, until the view fits. The active segment and the last
 * `minSegmentsToKeep` segments stay whole. `oldest`/`recent` split the eligible segments in two
 * halves, as priority-chain P2 and P4 do.
 */
export function dropMonologues(state: WorkState, ctx: StepContext, spec: Of<'drop_monologues'>): StepDetail {
  const segs = segmentsOf(
    buildUnits(state.entries, ctx.protectedTools),
    (u) => state.entries[u.idx[0]!]!.pos[0],
    state.segmentStarts,
  );
  const protect = Math.max(1, spec.minSegmentsToKeep ?? 1);
  const eligible = segs.slice(0, Math.max(0, segs.length - protect));
  const half = Math.ceil(eligible.length / 2);
  const chosen =
    spec.which === 'oldest' ? eligible.slice(0, half) : spec.which === 'recent' ? eligible.slice(half) : eligible;
  if (chosen.length === 0) return { skipped: 'no_completed_segments', segments: segs.length };
  let hidden = 0;
  let compacted = 0;
  for (const seg of chosen) {
    if (state.total() <= ctx.target && hidden > 0) break;
    const ids = monologueOf(seg).flatMap((u) => u.ids);
    if (ids.length === 0) continue;
    hidden += state.hide(ids);
    compacted++;
  }
  return { hidden, segments: segs.length, segmentsCompacted: compacted };
}
