import {
  USER_ONLY,
  type CompactionNoticePayload,
  type ErrorNoticePayload,
  type MessageKind,
  type StoredMessage,
} from '@threadline/protocol';
import { compactionNoticeText, errorNoticeText } from '../noticeTexts';
import type { TurnDeps } from './deps';

export { compactionNoticeText, errorNoticeText, MAX_ATTEMPTS_MESSAGE } from '../noticeTexts';

/** Notices are user-only messages: persisted, shown, never sent to the model. */
export function persistNotice(
  deps: Pick<TurnDeps, 'sessions' | 'emit'>,
  sessionId: string,
  kind: MessageKind,
  content: string,
): StoredMessage {
  const [message] = deps.sessions.append(sessionId, [{ role: 'user', content, kind, visibility: USER_ONLY }]);
  deps.emit({ type: 'notice', sessionId, message });
  return message;
}

export function persistCompactionNotice(
  deps: Pick<TurnDeps, 'sessions' | 'emit'>,
  sessionId: string,
  payload: Omit<CompactionNoticePayload, 'version'>,
): StoredMessage {
  const kind: MessageKind =
    payload.type === 'max_attempts' || payload.type === 'compaction_failed' ? 'error_notice' : 'runtime_notice';
  return persistNotice(deps, sessionId, kind, compactionNoticeText(payload));
}

/** A turn that ended badly, structured so the renderer says it in the user's language. */
export function persistErrorNotice(
  deps: Pick<TurnDeps, 'sessions' | 'emit'>,
  sessionId: string,
  payload: Omit<ErrorNoticePayload, 'version'>,
): StoredMessage {
  return persistNotice(deps, sessionId, 'error_notice', errorNoticeText(payload));
}
