import { parseNotice, type VisibilityLevel } from '@threadline/protocol';
import type { MemoryTally, Row } from './transcript';

/**
 * Compaction notices the divider already says (older sessions stored them beside it): one
 * element per compaction.
 */
const SAID_BY_DIVIDER = new Set(['auto_compacting', 'compacted', 'undone']);

/**
 * The rows the user sees of the stored record under the CURRENT visibility settings, applied to
 * every notice, past and future:
 * - off: no memory or gate chips (compaction dividers stay);
 * - brief: one memory chip per turn whose net change is not zero, a gate chip per rewrite;
 * - debug: every notice as stored, except a memory refresh that repeats the one before it (the
 *   same outcome: mode, counts, reasons; when it ran aside): changes, not repeats.
 */
export function visibleRows(rows: readonly Row[], runtime: VisibilityLevel, gate: VisibilityLevel): Row[] {
  const out: Row[] = [];
  let tally: MemoryTally = { added: 0, updated: 0, retired: 0, facts: 0 };
  let at = -1;
  let lastKey = '';
  let lastMsg: Extract<Row, { kind: 'notice' }>['msg'] | null = null;
  /** Debug: the outcome of the last memory refresh, to leave out one that repeats it. */
  let lastOutcome = '';
  const flush = () => {
    if (lastMsg && tally.added + tally.updated + tally.retired > 0)
      out.splice(at, 0, { kind: 'notice', key: lastKey, msg: lastMsg, tally });
    tally = { added: 0, updated: 0, retired: 0, facts: 0 };
    lastMsg = null;
  };
  for (const row of rows) {
    if (row.kind === 'user') flush();
    if (row.kind !== 'notice') {
      out.push(row);
      continue;
    }
    const parsed = parseNotice(row.msg.content);
    if (parsed?.type === 'compaction' && SAID_BY_DIVIDER.has(parsed.payload.type)) continue;
    if (parsed?.type === 'gate') {
      if (gate !== 'off') out.push(row);
      continue;
    }
    if (parsed?.type === 'runtime' && runtime === 'debug') {
      const outcome = JSON.stringify({ ...parsed.payload, reason: undefined, verbosity: undefined });
      if (outcome !== lastOutcome) out.push(row);
      lastOutcome = outcome;
      continue;
    }
    if (parsed?.type !== 'runtime') {
      out.push(row);
      continue;
    }
    if (runtime === 'off') continue;
    // brief: the turn's refreshes add up to one chip, where the last of them was.
    const p = parsed.payload;
    tally = {
      added: tally.added + (p.added ?? 0),
      updated: tally.updated + (p.updated ?? 0),
      retired: tally.retired + (p.retired ?? 0),
      facts: p.factCount,
    };
    at = out.length;
    lastKey = row.key;
    lastMsg = row.msg;
  }
  flush();
  return out;
}
