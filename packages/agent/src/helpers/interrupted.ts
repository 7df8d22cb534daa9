import type { Store } from '@threadline/store';
import { TURN_ABORTED_TEXT, errorNoticeText } from '../noticeTexts';

/**
 * At start (after a crash or kill -9 of the previous run): helpers still queued or running belong
 * to a delegate call that never ended. Each is marked interrupted (its messages stay as stored;
 * its processes are ended by process/reap.ts), and its parent gets the turn_aborted marker and a
 * notice saying which call's helpers stopped, so reopening the session shows them as they ended.
 */
export function markInterruptedHelpers(store: Store): void {
  store.transaction(() => markAll(store));
}

function markAll(store: Store): void {
  const open = store.helpers.interruptOpen();
  const byCall = new Map<string, { parent: string; count: number }>();
  for (const h of open) {
    const seen = byCall.get(h.toolCallId);
    byCall.set(h.toolCallId, { parent: h.parentSessionId, count: (seen?.count ?? 0) + 1 });
  }
  for (const [toolCallId, { parent, count }] of byCall) {
    if (!store.sessions.get(parent)) continue;
    store.messages.append(parent, [
      { role: 'user', content: TURN_ABORTED_TEXT, kind: 'turn_aborted', visibility: { user: true, agent: true } },
      {
        role: 'user',
        content: errorNoticeText({ type: 'helpers_interrupted', toolCallId, count }),
        kind: 'error_notice',
        visibility: { user: true, agent: false },
      },
    ]);
  }
}
