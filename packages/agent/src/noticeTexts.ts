// The texts the runtime writes into a session's history for the user or the model: notices (as
// structured payloads the renderer words in the user's language) and the marker of an interrupted
// turn. A leaf: every folder of the agent may import it, and it imports nothing of the agent.
import { MAX_COMPACTION_ATTEMPTS_MESSAGE } from '@threadline/context';
import {
  COMPACTION_NOTICE_PREFIX,
  ERROR_NOTICE_PREFIX,
  formatNotice,
  type CompactionNoticePayload,
  type ErrorNoticePayload,
} from '@threadline/protocol';

/** The message a turn stopped by the user (or a crash) leaves: the model reads it on the next turn. */
export const TURN_ABORTED_TEXT =
  '<turn_aborted>The user interrupted the previous turn; its work may be incomplete.</turn_aborted>';

export function compactionNoticeText(payload: Omit<CompactionNoticePayload, 'version'>): string {
  return formatNotice(COMPACTION_NOTICE_PREFIX, { version: 'v1', ...payload });
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

/** The reason of the `max_attempts` compaction notice, word for word as the engine states it. */
export const MAX_ATTEMPTS_MESSAGE = MAX_COMPACTION_ATTEMPTS_MESSAGE;
