import type { StoredMessage } from '@threadline/protocol';
import type { ToolStatus } from '../store/types';

/** A tool call's status: live while it waits or runs, then its result's (a card without either ended with the turn). */
export function statusOf(
  result: StoredMessage | null,
  state: ToolStatus | undefined,
  sessionBusy: boolean,
): ToolStatus {
  if (state && (state === 'waiting' || state === 'running' || !result)) return state;
  if (result) {
    const s = result.meta?.status;
    if (s === 'ok' || s === 'error' || s === 'denied' || s === 'aborted') return s;
    return state ?? (result.meta?.ok === false ? 'error' : 'ok');
  }
  return sessionBusy ? 'running' : 'aborted';
}
