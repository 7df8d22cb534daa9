import type { PendingToolCall, StoredMessage } from '@threadline/protocol';
import type { ToolState, ToolStatus } from './types';

/** A card's state from a pending call (protocol's pendingToolCall: chat.state or tool.requested). */
export function pendingToolState(sessionId: string, pending: PendingToolCall, status: ToolStatus): ToolState {
  const { toolCall, status: _status, ...card } = pending;
  return { sessionId, durationMs: null, status, call: toolCall, ...card };
}

/** Insert or replace by id, keeping seq order; appending at the end is the common, cheap case. */
export function mergeMessage(list: StoredMessage[], m: StoredMessage): StoredMessage[] {
  const idx = list.findIndex((x) => x.id === m.id);
  if (idx >= 0) {
    const copy = list.slice();
    copy[idx] = m;
    return copy;
  }
  const last = list[list.length - 1];
  if (!last || last.seq <= m.seq) return [...list, m];
  const copy = [...list, m];
  copy.sort((a, b) => a.seq - b.seq);
  return copy;
}

/**
 * Tool states of calls whose step never reached history (a turn that failed before its commit):
 * once the session is idle, nothing will ever finish them, so their cards must go.
 */
export function withoutUncommitted(
  tools: Record<string, ToolState>,
  sessionId: string,
  stored: Set<string>,
): Record<string, ToolState> {
  const out: Record<string, ToolState> = {};
  for (const [id, t] of Object.entries(tools))
    if (t.sessionId !== sessionId || !t.messageId || stored.has(t.messageId)) out[id] = t;
  return out;
}

export function lastUserText(list: StoredMessage[]): string | null {
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i];
    if (m && m.role === 'user' && m.kind === 'normal' && m.content) return m.content;
  }
  return null;
}

/** The branch up to its last request (what a regenerate or retry answers again). */
export function throughLastRequest(list: StoredMessage[]): StoredMessage[] {
  const i = list.findLastIndex((m) => m.role === 'user' && m.kind === 'normal' && m.visibility.agent);
  return i < 0 ? list : list.slice(0, i + 1);
}

/**
 * The streamed text of a step from a snapshot (`snapshot`, everything up to some moment) and the
 * deltas the page received meanwhile (`live`, which may overlap the snapshot's end): the longest
 * end of the snapshot that starts `live` is counted once.
 */
export function joinStream(snapshot: string, live: string): string {
  if (live === '' || snapshot.endsWith(live)) return snapshot;
  if (live.startsWith(snapshot)) return live;
  for (let k = Math.min(snapshot.length, live.length); k > 0; k--) {
    if (snapshot.endsWith(live.slice(0, k))) return snapshot + live.slice(k);
  }
  return snapshot + live;
}
