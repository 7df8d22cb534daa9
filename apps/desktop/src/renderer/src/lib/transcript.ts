import type { Checkpoint, CompactionRecord, StoredMessage, ToolCall } from '@threadline/protocol';
import type { StreamingMessage, ToolState } from '../store/types';

export interface ToolCallView {
  call: ToolCall;
  result: StoredMessage | null;
}

export type Versions = NonNullable<StoredMessage['versions']>;

/** Memory's net change over one turn: what a brief chip says. */
export interface MemoryTally {
  added: number;
  updated: number;
  retired: number;
  /** Facts in memory after the turn's last refresh. */
  facts: number;
}

export type Row =
  | { kind: 'user'; key: string; msg: StoredMessage; hidden: boolean; versions?: Versions }
  | {
      kind: 'assistant';
      key: string;
      msg: StoredMessage;
      hidden: boolean;
      tools: ToolCallView[];
      versions?: Versions;
      /** The last answer of the transcript: it can be regenerated. */
      last?: boolean;
    }
  | { kind: 'tool'; key: string; msg: StoredMessage; hidden: boolean }
  | { kind: 'notice'; key: string; msg: StoredMessage; tally?: MemoryTally }
  | { kind: 'aborted'; key: string; msg: StoredMessage }
  | { kind: 'error'; key: string; msg: StoredMessage; retryable: boolean; versions?: Versions }
  | { kind: 'divider'; key: string; compaction: CompactionRecord; latest: boolean; inserted: StoredMessage[] }
  /** What a turn changed in the working folder ("N files changed"), after the turn's last reply. */
  | { kind: 'checkpoint'; key: string; checkpoint: Checkpoint };

const NOTICE_PREFIXES = ['[THREADLINE_COMPACTION_V1]', '[CFPM_RUNTIME_V1]', '[CFPM_TOOL_GATE_V1]'];

/** Ids the agent no longer sees: the union of active compactions' hidden ids. */
export function hiddenIdSet(compactions: CompactionRecord[]): Set<string> {
  const s = new Set<string>();
  for (const c of compactions) if (c.active) for (const id of c.hiddenIds) s.add(id);
  return s;
}

/** The latest active compaction is the only one that can be undone. */
export function latestActive(compactions: CompactionRecord[]): CompactionRecord | null {
  let best: CompactionRecord | null = null;
  for (const c of compactions) if (c.active && (!best || c.createdAt >= best.createdAt)) best = c;
  return best;
}

/**
 * Turn a session's history into the rows the user sees: tool results fold into the card of the
 * call that asked for them, agent-only messages (summaries, memory blocks) are not bubbles, and a
 * divider sits after the last message each compaction saw.
 */
export function buildRows(messages: StoredMessage[], compactions: CompactionRecord[]): Row[] {
  const hidden = hiddenIdSet(compactions);
  const latest = latestActive(compactions);
  const byId = new Map(messages.map((m) => [m.id, m]));
  const results = new Map<string, StoredMessage>();
  const calledIds = new Set<string>();
  for (const m of messages) {
    if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, m);
    if (m.role === 'assistant' && m.tool_calls) for (const c of m.tool_calls) calledIds.add(c.id);
  }

  const dividers = [...compactions].sort((a, b) => a.afterSeq - b.afterSeq || a.createdAt - b.createdAt);
  let d = 0;
  const rows: Row[] = [];
  const pushDividersUpTo = (seq: number) => {
    while (d < dividers.length && dividers[d]!.afterSeq < seq) {
      const c = dividers[d++]!;
      const inserted = c.insertedIds.map((id) => byId.get(id)).filter((m): m is StoredMessage => Boolean(m));
      rows.push({ kind: 'divider', key: `c:${c.id}`, compaction: c, latest: latest?.id === c.id, inserted });
    }
  };

  // A reply's versions belong to its first message, which may not be drawn as a bubble (a tool
  // result, a notice): the next answer or error row shows the switcher then.
  let carried: Versions | undefined;
  const take = (): Versions | undefined => {
    const v = carried;
    carried = undefined;
    return v;
  };
  for (const m of messages) {
    pushDividersUpTo(m.seq);
    if (m.versions && m.versions.count > 1 && !(m.role === 'user' && m.kind === 'normal')) carried = m.versions;
    if (!m.visibility.user || m.role === 'system') continue;
    const isHidden = hidden.has(m.id);
    switch (m.kind) {
      case 'runtime_notice':
      case 'gate_notice':
      case 'checkpoint_notice':
        rows.push({ kind: 'notice', key: m.id, msg: m });
        continue;
      case 'turn_aborted':
        rows.push({ kind: 'aborted', key: m.id, msg: m });
        continue;
      case 'error_notice':
        // Compaction failures are error notices with a parseable payload: show them as chips.
        if (NOTICE_PREFIXES.some((p) => m.content?.startsWith(p))) rows.push({ kind: 'notice', key: m.id, msg: m });
        else rows.push({ kind: 'error', key: m.id, msg: m, retryable: false, versions: take() });
        continue;
      default:
        break;
    }
    if (m.role === 'user') {
      // Compaction notices may be stored with kind normal but a known prefix.
      if (NOTICE_PREFIXES.some((p) => m.content?.startsWith(p))) rows.push({ kind: 'notice', key: m.id, msg: m });
      else rows.push({ kind: 'user', key: m.id, msg: m, hidden: isHidden, versions: m.versions });
    } else if (m.role === 'assistant') {
      if (NOTICE_PREFIXES.some((p) => m.content?.startsWith(p))) {
        rows.push({ kind: 'notice', key: m.id, msg: m });
        continue;
      }
      const tools = (m.tool_calls ?? []).map((call) => ({ call, result: results.get(call.id) ?? null }));
      if (!m.content && tools.length === 0) continue;
      rows.push({ kind: 'assistant', key: m.id, msg: m, hidden: isHidden, tools, versions: take() });
    } else if (m.role === 'tool') {
      if (m.tool_call_id && calledIds.has(m.tool_call_id)) continue;
      rows.push({ kind: 'tool', key: m.id, msg: m, hidden: isHidden });
    }
  }
  pushDividersUpTo(Number.POSITIVE_INFINITY);
  // The last answer, with nothing asked since, can be regenerated.
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]!;
    if (r.kind === 'user') break;
    if (r.kind === 'assistant') {
      rows[i] = { ...r, last: true };
      break;
    }
  }
  // Only the latest error, with nothing asked since, offers "retry".
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]!;
    if (r.kind === 'user') break;
    if (r.kind === 'error') {
      rows[i] = { ...r, retryable: true };
      break;
    }
  }
  return rows;
}

/**
 * Each checkpoint's row goes after the last row at or before its anchor (the turn's last reply);
 * a checkpoint anchored on another branch is not shown.
 */
export function withCheckpoints(rows: Row[], messages: StoredMessage[], checkpoints: readonly Checkpoint[]): Row[] {
  if (checkpoints.length === 0) return rows;
  const seqOf = new Map(messages.map((m) => [m.id, m.seq]));
  const out = [...rows];
  for (const c of checkpoints) {
    const anchor = c.anchorId === null ? undefined : seqOf.get(c.anchorId);
    if (anchor === undefined) continue;
    let at = -1;
    for (let i = 0; i < out.length; i++) {
      const r = out[i]!;
      const seq = 'msg' in r ? r.msg.seq : r.kind === 'checkpoint' ? null : r.compaction.afterSeq;
      if (seq === null || seq <= anchor) at = i;
      else break;
    }
    out.splice(at + 1, 0, { kind: 'checkpoint', key: `cp:${c.id}`, checkpoint: c });
  }
  return out;
}

/** The step the model is on: its streamed text and the calls it made, before the step commits. */
export interface PendingStep {
  messageId: string;
  text: string;
  /** The model's thinking streamed so far ('' when it sends none). */
  reasoning: string;
  calls: ToolCall[];
}

/** Streams and requested calls of messages not in history yet, in the order they began. */
export function pendingSteps(
  messages: StoredMessage[],
  streams: StreamingMessage[],
  tools: ToolState[],
): PendingStep[] {
  const stored = new Set(messages.map((m) => m.id));
  const steps = new Map<string, PendingStep>();
  const step = (messageId: string): PendingStep => {
    let s = steps.get(messageId);
    if (!s) steps.set(messageId, (s = { messageId, text: '', reasoning: '', calls: [] }));
    return s;
  };
  for (const s of streams)
    if (!stored.has(s.messageId)) Object.assign(step(s.messageId), { text: s.text, reasoning: s.reasoning ?? '' });
  for (const t of tools) if (t.call && t.messageId && !stored.has(t.messageId)) step(t.messageId).calls.push(t.call);
  return [...steps.values()];
}
