import type { HelperSummary, ToolCall, UsageTotals } from '@threadline/protocol';

/** Tokens model calls used: what they sent and what they got back. */
export const usedTokens = (u: Pick<UsageTotals, 'promptTokens' | 'completionTokens'>): number =>
  u.promptTokens + u.completionTokens;

/** What a call's helpers took together: tokens used, tokens their reports take in the parent, cost. */
export function helperTotals(list: readonly HelperSummary[]): { used: number; returned: number; cost: number | null } {
  let used = 0;
  let returned = 0;
  let cost: number | null = 0;
  for (const h of list) {
    used += usedTokens(h.usage);
    returned += h.returnedTokens ?? 0;
    cost = cost === null || h.usage.cost === null ? null : cost + h.usage.cost;
  }
  return { used, returned, cost };
}

/** The tasks a delegate call asks for, as its arguments say (before its helpers are stored). */
export function delegateTasks(call: ToolCall): { task: string; role: string }[] {
  try {
    const args = JSON.parse(call.function.arguments) as { tasks?: unknown };
    if (!Array.isArray(args.tasks)) return [];
    return args.tasks.flatMap((t: unknown) => {
      const o = t as { task?: unknown; role?: unknown };
      return typeof o?.task === 'string'
        ? [{ task: o.task, role: typeof o.role === 'string' ? o.role : 'explore' }]
        : [];
    });
  } catch {
    return [];
  }
}

/** The first line of a task, for a row that has one line for it. */
export function taskLine(task: string): string {
  return task.trim().split('\n')[0] ?? '';
}
