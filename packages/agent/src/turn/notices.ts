import { MAX_COMPACTION_ATTEMPTS_MESSAGE } from '@threadline/context';
import {
  COMPACTION_NOTICE_PREFIX,
  USER_ONLY,
  formatNotice,
  type CompactionNoticePayload,
  type MessageKind,
  type StoredMessage,
} from '@threadline/protocol';
import type { TurnDeps } from './deps';

/** Notices are user-only messages: persisted, shown, never sent to the model (SPEC §2). */
export function persistNotice(deps: TurnDeps, sessionId: string, kind: MessageKind, content: string): StoredMessage {
  const [message] = deps.store.messages.append(sessionId, [{ role: 'user', content, kind, visibility: USER_ONLY }]);
  deps.emit({ type: 'notice', sessionId, message });
  return message;
}

export function compactionNoticeText(payload: Omit<CompactionNoticePayload, 'version'>): string {
  return formatNotice(COMPACTION_NOTICE_PREFIX, { version: 'v1', ...payload });
}

export function persistCompactionNotice(
  deps: TurnDeps,
  sessionId: string,
  payload: Omit<CompactionNoticePayload, 'version'>,
): StoredMessage {
  const kind: MessageKind = payload.type === 'max_attempts' || payload.type === 'compaction_failed' ? 'error_notice' : 'runtime_notice';
  return persistNotice(deps, sessionId, kind, compactionNoticeText(payload));
}

/** SPEC §3.5, word for word. */
export const MAX_ATTEMPTS_MESSAGE = MAX_COMPACTION_ATTEMPTS_MESSAGE;
