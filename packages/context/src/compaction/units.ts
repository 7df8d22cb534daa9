import type { StoredMessage } from '@threadline/protocol';
import { isAbortMarker } from '../markers';
import { COMPACTION_KINDS, type WorkEntry } from './state';

export { isAbortMarker };

/** Tools whose results survive every compaction. */
export const DEFAULT_PROTECTED_TOOLS: readonly string[] = ['manage_todo_list'];

/**
 * The atom of every reduction: an assistant message with tool calls together with all of its
 * results, or a single other message. Steps hide whole units, so no step can split a pair.
 */
export interface Unit {
  /** Indexes into WorkState.entries, ascending. */
  idx: number[];
  ids: string[];
  tokens: number;
  first: StoredMessage;
  isSystem: boolean;
  /** A user's own message (not something the engine or runtime inserted). */
  isUser: boolean;
  isProtected: boolean;
  isAbortMarker: boolean;
  /** A summary, continuation or memory snapshot of an earlier compaction. */
  isCompactionInsert: boolean;
  /** A placeholder prune_tool_outputs put in place of a tool output. */
  isPlaceholder: boolean;
}

export function buildUnits(
  entries: readonly WorkEntry[],
  protectedTools: readonly string[] = DEFAULT_PROTECTED_TOOLS,
): Unit[] {
  const prot = new Set(protectedTools);
  const units: Unit[] = [];
  const owner = new Map<string, Unit>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const m = e.msg;
    if (m.role === 'tool' && m.tool_call_id !== undefined) {
      const u = owner.get(m.tool_call_id);
      if (u) {
        u.idx.push(i);
        u.ids.push(m.id);
        u.tokens += e.tokens;
        if (m.name !== undefined && prot.has(m.name)) u.isProtected = true;
        if (m.meta?.['placeholderFor'] !== undefined) u.isPlaceholder = true;
        continue;
      }
    }
    const calls = m.role === 'assistant' ? (m.tool_calls ?? []) : [];
    const u: Unit = {
      idx: [i],
      ids: [m.id],
      tokens: e.tokens,
      first: m,
      isSystem: m.role === 'system',
      isUser: m.role === 'user' && m.kind === 'normal' && !isCompactionMeta(m),
      isProtected:
        calls.some((c) => prot.has(c.function.name)) || (m.role === 'tool' && m.name !== undefined && prot.has(m.name)),
      isAbortMarker: isAbortMarker(m),
      isCompactionInsert: COMPACTION_KINDS.has(m.kind),
      isPlaceholder: m.meta?.['placeholderFor'] !== undefined,
    };
    for (const c of calls) owner.set(c.id, u);
    units.push(u);
  }
  return units;
}

function isCompactionMeta(m: StoredMessage): boolean {
  return typeof m.meta?.['compactionId'] === 'string';
}

/** Units a folding step must leave visible: initial context, protected tools, turn-aborted markers. */
export function isExempt(u: Unit): boolean {
  return u.isSystem || u.isProtected || u.isAbortMarker;
}

/** Number of messages in a list of units. */
export function messageCount(units: readonly Unit[]): number {
  let n = 0;
  for (const u of units) n += u.ids.length;
  return n;
}

/**
 * Index of the first unit of the tail that holds at least `keepLast` messages. Whole units only:
 * the boundary moves earlier rather than split a tool pair.
 */
export function tailStart(units: readonly Unit[], keepLast: number): number {
  let kept = 0;
  let i = units.length;
  while (i > 0 && kept < keepLast) kept += units[--i]!.ids.length;
  return i;
}

/** Index after the head that holds at least `keepFirst` messages (earlier compaction inserts don't count). */
export function headEnd(units: readonly Unit[], keepFirst: number): number {
  let kept = 0;
  let i = 0;
  while (i < units.length && kept < keepFirst) {
    if (!units[i]!.isCompactionInsert) kept += units[i]!.ids.length;
    i++;
  }
  return i;
}
