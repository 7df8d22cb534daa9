import type { HelperSummary } from '@threadline/protocol';
import { costOf, pricing } from '../session/costLedger';
import type { TurnDeps } from '../turn/deps';

/**
 * A session's helpers as their rows show them, from the store alone (helpers.list): after a
 * restart or a reload, they are as they ended, with the tools they called and what they spent.
 */
export function helperSummaries(deps: Pick<TurnDeps, 'store'>, parentSessionId: string): HelperSummary[] {
  const rows = deps.store.helpers.list(parentSessionId);
  if (rows.length === 0) return [];
  const calls = deps.store.helpers.toolCalls(parentSessionId);
  const price = pricing(deps);
  return rows.map((row) => ({
    ...row,
    toolCalls: calls.get(row.id) ?? [],
    usage: costOf(row.id, deps.store.usage.calls(row.id), price).total,
  }));
}
