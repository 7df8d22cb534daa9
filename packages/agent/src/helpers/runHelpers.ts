import type { DelegateRequest, ToolResult } from '../tools/types';
import type { Turn } from '../turn/turn';
import { HelperRun, type HelperClients } from './helperRun';
import { helperConcurrency, planHelpers } from './roles';

/**
 * A delegate call: its tasks checked against the parent's boundary, a helper each (a session of
 * its own, stored before any runs), run at most `helperConcurrency` at a time, and the result once
 * every one has ended or been stopped: one section per task, in task order, with its report and
 * what its work verified. The parent reads this, never the helpers' tool calls.
 */
export async function runHelpers(
  parent: Turn,
  toolCallId: string,
  args: DelegateRequest,
  clients: HelperClients,
): Promise<ToolResult> {
  const planned = planHelpers(parent, args);
  if ('error' in planned) return { ok: false, content: planned.error };
  const place = parent.folder();
  if ('error' in place) return { ok: false, content: `Error: no usable working folder: ${place.error}` };
  const { plans } = planned;
  const rows = parent.deps.store.helpers.create(
    parent.sessionId,
    place.folder,
    plans.map((p) => ({ toolCallId, index: p.index, task: p.task, role: p.role, model: p.model, tools: p.tools })),
  );
  const runs = rows.map((row, i) => new HelperRun(parent, row, plans[i]!, plans.length, clients));
  for (const r of runs) r.announce();
  // A few workers taking the next task in order: a pool of this size needs no library.
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) await runs[next++]!.run();
  };
  await Promise.all(
    Array.from({ length: Math.min(helperConcurrency(parent.settings, parent.profile), runs.length) }, worker),
  );
  const done = runs.filter((r) => r.status === 'done').length;
  const head =
    done === runs.length
      ? `${runs.length === 1 ? 'The helper' : `All ${runs.length} helpers`} finished.`
      : `${done} of ${runs.length} helpers finished; the others did not (see below).`;
  return {
    ok: done === runs.length,
    content: [head, ...runs.map((r) => r.section)].join('\n\n'),
    meta: { helpers: runs.map((r) => r.id) },
  };
}
