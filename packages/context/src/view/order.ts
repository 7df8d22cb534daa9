import type { CompactionRecord, StoredMessage } from '@threadline/protocol';

/**
 * Where a message sits in the agent's view. History messages sit at their `seq`; a message a
 * compaction inserted sits at `meta.anchorSeq + 0.5` (right after the history message with that
 * seq), ordered among its peers by the compaction's position and `meta.anchorOrder`. The runtime
 * appends inserted messages to history with a higher seq; the anchor, not the seq, places them.
 */
export type ViewPos = readonly [number, number, number];

export function anchorOf(m: StoredMessage): { compactionId: string; anchorSeq: number; anchorOrder: number } | null {
  const meta = m.meta;
  if (!meta) return null;
  const id = meta['compactionId'];
  const anchor = meta['anchorSeq'];
  if (typeof id !== 'string' || typeof anchor !== 'number') return null;
  const order = meta['anchorOrder'];
  return { compactionId: id, anchorSeq: anchor, anchorOrder: typeof order === 'number' ? order : 0 };
}

export function comparePos(a: ViewPos, b: ViewPos): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

export interface OrderedMessage {
  msg: StoredMessage;
  pos: ViewPos;
}

/**
 * The ids of `history` that an active compaction hides. A long session's compactions hide
 * thousands of ids while the view's history is its last few dozen messages (a step's view): then
 * only the history's own ids are kept, not a set of every hidden id built at every step.
 */
function hiddenOf(
  history: readonly StoredMessage[],
  compactions: readonly CompactionRecord[],
  hiddenCount: number,
): ReadonlySet<string> {
  const hidden = new Set<string>();
  if (hiddenCount <= history.length) {
    for (const c of compactions) if (c.active) for (const id of c.hiddenIds) hidden.add(id);
    return hidden;
  }
  const ids = new Set<string>();
  for (const m of history) ids.add(m.id);
  for (const c of compactions) if (c.active) for (const id of c.hiddenIds) if (ids.has(id)) hidden.add(id);
  return hidden;
}

/**
 * The history messages the agent sees, in view order (before system prompt, memory block and
 * normalization): agent-visible, not hidden by an active compaction, and — for inserted
 * messages — belonging to an active compaction.
 */
export function orderAgentMessages(
  history: readonly StoredMessage[],
  compactions: readonly CompactionRecord[] = [],
): OrderedMessage[] {
  const activeIndex = new Map<string, number>();
  let i = 0;
  let hiddenCount = 0;
  for (const c of compactions) {
    if (!c.active) continue;
    activeIndex.set(c.id, i++);
    hiddenCount += c.hiddenIds.length;
  }
  const hidden = hiddenOf(history, compactions, hiddenCount);
  const out: OrderedMessage[] = [];
  for (const msg of history) {
    if (!msg.visibility.agent || hidden.has(msg.id)) continue;
    const anchor = anchorOf(msg);
    if (anchor) {
      const idx = activeIndex.get(anchor.compactionId);
      if (idx === undefined) continue;
      out.push({ msg, pos: [anchor.anchorSeq + 0.5, idx, anchor.anchorOrder] });
    } else {
      out.push({ msg, pos: [msg.seq, -1, 0] });
    }
  }
  // Already in seq order almost always; the sort only moves inserted messages to their anchors.
  return out.sort((a, b) => comparePos(a.pos, b.pos));
}
