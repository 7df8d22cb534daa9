import { MAX_COMPACTION_ATTEMPTS_MESSAGE } from '@threadline/context';
import {
  COMPACTION_NOTICE_PREFIX,
  ERROR_NOTICE_PREFIX,
  USER_ONLY,
  formatNotice,
  type CompactionNoticePayload,
  type ErrorNoticePayload,
  type MessageKind,
  type StoredMessage,
} from '@threadline/protocol';
import type { TurnDeps } from './deps';

/** Notices are user-only messages: persisted, shown, never sent to the model (SPEC §2). */
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

export function compactionNoticeText(payload: Omit<CompactionNoticePayload, 'version'>): string {
  return formatNotice(COMPACTION_NOTICE_PREFIX, { version: 'v1', ...payload });
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

/** The longest `message` an error notice carries (ErrorNoticePayloadSchema allows 4000). */
const ERROR_MESSAGE_MAX = 4000;

export function errorNoticeText(payload: Omit<ErrorNoticePayload, 'version'>): string {
  // Cut to the schema's bounds, or parseNotice would refuse the whole notice.
  const out: ErrorNoticePayload = { version: 'v1', ...payload };
  if (out.message !== undefined) out.message = out.message.slice(0, ERROR_MESSAGE_MAX);
  if (out.tool !== undefined) out.tool = out.tool.slice(0, 200);
  return formatNotice(ERROR_NOTICE_PREFIX, out);
}

/** A turn that ended badly, structured so the renderer says it in the user's language. */
export function persistErrorNotice(
  deps: Pick<TurnDeps, 'sessions' | 'emit'>,
  sessionId: string,
  payload: Omit<ErrorNoticePayload, 'version'>,
): StoredMessage {
  return persistNotice(deps, sessionId, 'error_notice', errorNoticeText(payload));
}

/** SPEC §3.5, word for word. */
export const MAX_ATTEMPTS_MESSAGE = MAX_COMPACTION_ATTEMPTS_MESSAGE;
