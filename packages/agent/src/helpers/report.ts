import { countTextTokens, isActiveFact, refreshMemory } from '@threadline/context';
import { parseNotice, type HelperStatus, type StoredMessage } from '@threadline/protocol';
import type { HelperPlan } from './roles';

/** How a helper's turn ended, read from its history. */
export interface HelperOutcome {
  status: Extract<HelperStatus, 'done' | 'stopped' | 'failed'>;
  report: string | null;
  error: string | null;
}

/** What a helper's work verified, deterministically (no model call): what its report lists. */
export interface HelperFindings {
  /** Files it read whole or in part (read_file that answered), as it named them. */
  read: string[];
  /** Files it changed (edit_file, write_file, a shell command that wrote one and succeeded). */
  changed: string[];
  /** Other things it verified: commands that succeeded, MCP calls. */
  verified: string[];
}

/** Each list of a report is cut at this many items (the transcript keeps the rest). */
const LIST_MAX = 20;

/** A helper's own messages the parent's memory may learn from: its calls and their results, its answers. */
export function workMessages(history: readonly StoredMessage[]): StoredMessage[] {
  return history.filter((m) => m.kind === 'normal' && (m.role === 'assistant' || m.role === 'tool'));
}

/**
 * The helper's end from its history: its last word is an answer without calls (done), or the
 * user stopped it (stopped), or anything else (failed: an error notice says why, when there is one).
 */
export function outcomeOf(history: readonly StoredMessage[], stopped: boolean): HelperOutcome {
  // Notices of its memory and gate are about the step before them, not how it ended.
  const last = history.findLast((m) => m.kind !== 'runtime_notice' && m.kind !== 'gate_notice');
  const answer =
    last?.role === 'assistant' &&
    last.kind === 'normal' &&
    (last.tool_calls?.length ?? 0) === 0 &&
    last.meta?.partial !== true
      ? (last.content ?? '')
      : null;
  if (stopped) {
    const partial = history.findLast((m) => m.role === 'assistant' && m.kind === 'normal' && (m.content ?? '') !== '');
    return { status: 'stopped', report: answer ?? (partial?.content || null), error: null };
  }
  if (answer !== null && answer.trim() !== '') return { status: 'done', report: answer, error: null };
  if (last?.kind === 'error_notice') {
    const notice = parseNotice(last.content);
    const p = notice?.type === 'error' ? notice.payload : null;
    const why = p ? (p.message ?? (p.limit !== undefined ? `${p.type} (${p.limit})` : p.type)) : (last.content ?? '');
    return { status: 'failed', report: null, error: why.slice(0, 4000) };
  }
  return { status: 'failed', report: null, error: 'it ended without a final answer' };
}

/** What the helper's calls and their results verified, found by the memory engine's own rules. */
export function findingsOf(
  sessionId: string,
  messages: readonly StoredMessage[],
  now: number,
  newId: () => string,
): HelperFindings {
  const read: string[] = [];
  const ok = new Set(
    messages.filter((m) => m.role === 'tool' && m.meta?.status === 'ok').map((m) => m.tool_call_id ?? ''),
  );
  for (const m of messages)
    for (const c of m.tool_calls ?? []) {
      if (c.function.name !== 'read_file' || !ok.has(c.id)) continue;
      const path = pathArg(c.function.arguments);
      if (path !== null && !read.includes(path)) read.push(path);
    }
  const facts = refreshMemory({ sessionId, messages: [...messages], recent: messages.length, facts: [], now, newId })
    .facts.filter(isActiveFact)
    .filter((f) => f.category === 'verified_action');
  const changed: string[] = [];
  const verified: string[] = [];
  for (const f of facts) {
    const edited = /^edited (.+)$/.exec(f.content);
    if (edited) changed.push(edited[1]!);
    else verified.push(f.content);
  }
  return { read: read.slice(0, LIST_MAX), changed: changed.slice(0, LIST_MAX), verified: verified.slice(0, LIST_MAX) };
}

function pathArg(raw: string): string | null {
  try {
    const v: unknown = JSON.parse(raw);
    const p = v && typeof v === 'object' ? (v as { path?: unknown }).path : null;
    return typeof p === 'string' && p !== '' ? p : null;
  } catch {
    return null;
  }
}

/**
 * One helper's part of the delegate call's result: which task, how it ended, its report, and
 * what its work verified. The parent reads this and never the helper's tool traffic.
 */
export function reportSection(plan: HelperPlan, of: number, outcome: HelperOutcome, findings: HelperFindings): string {
  const head = `## Helper ${plan.index + 1} of ${of} (${plan.role}, ${outcome.status}${plan.model ? `, ${plan.model}` : ''})`;
  const task = plan.task.trim().split('\n')[0]!;
  const lines = [head, `Task: ${task.length > 200 ? `${task.slice(0, 199)}…` : task}`, ''];
  if (outcome.report) lines.push(outcome.report.trim());
  else if (outcome.status === 'stopped') lines.push('(no report: the user stopped it)');
  else lines.push(`(no report: ${outcome.error ?? 'it ended without one'})`);
  const list = (label: string, items: string[]): void => {
    if (items.length > 0) lines.push(`${label}: ${items.join(', ')}`);
  };
  lines.push('');
  list('Files it read', findings.read);
  list('Files it changed', findings.changed);
  list('Verified', findings.verified);
  return lines.join('\n').trimEnd();
}

/** Tokens of a report section as the parent's model counts them. */
export function sectionTokens(section: string, model: string): number {
  return countTextTokens(section, model);
}
