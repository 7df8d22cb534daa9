import {
  countTextTokensAsync,
  safeHead,
  safeTail,
  TOKENS_PER_MESSAGE,
  truncateToolOutputAsync,
} from '@threadline/context';
import { MESSAGE_TEXT_KEEP, USER_ONLY, VISIBLE_TO_ALL, type StoredMessage } from '@threadline/protocol';
import type { NewMessage } from '@threadline/store';
import { contentWithAttachments, type PreparedAttachments } from '../attachments';
import { tokenBudget } from './budget';
import type { UserRequest } from './manualCompaction';
import { titleFrom } from '../session/title';
import type { Turn } from './turn';

/**
 * An oversized paste is truncated with a marker. Over half the window (in the engine's
 * tokens) the model gets head + tail, as for a tool output; the full text stays beside it
 * (messages.fullOutput for the user, read_tool_output by message id for the agent).
 */
async function userContent(turn: Turn, id: string, text: string): Promise<NewMessage> {
  const { deps, sessionId, profile } = turn;
  // Over what a message keeps: head and tail by characters first (the whole text stays beside it).
  if (text.length > MESSAGE_TEXT_KEEP) {
    // Room for the marker: the cut text is within MESSAGE_TEXT_KEEP (else this would recurse).
    const half = Math.floor((MESSAGE_TEXT_KEEP - 200) / 2);
    const head = safeHead(text, half);
    const tail = safeTail(text, half);
    const cut = `${head}\n…${text.length - head.length - tail.length} chars truncated… (the full text can be read with read_tool_output(id: "${id}", offset, limit))\n${tail}`;
    const inner = await userContent(turn, id, cut);
    return { ...inner, fullOutput: text, meta: { ...inner.meta, truncated: true } };
  }
  const plain: NewMessage = { id, role: 'user', content: text };
  // Half of what the provider can take, in the engine's units: the window less the tool
  // definitions, scaled by the calibration (turn/budget.ts).
  const limit = Math.max(1, Math.floor(tokenBudget(deps, sessionId, profile).viewWindow / 2));
  // A token is at least one UTF-8 byte: a text this small cannot be over, no need to count it.
  if (Buffer.byteLength(text, 'utf8') <= limit) return plain;
  // A long paste is counted in slices (other sessions' requests are answered meanwhile).
  if ((await countTextTokensAsync(text, profile.model)) + TOKENS_PER_MESSAGE <= limit) return plain;
  const cut = await truncateToolOutputAsync(text, {
    policy: 'tokens',
    maxTokens: limit,
    model: profile.model,
    outputId: id,
  });
  if (!cut.truncated) return plain;
  return { ...plain, content: cut.text, fullOutput: text, meta: { truncated: true } };
}

/** Step 1: the store appends the user message (its own transaction, before chat.send returns; turns.commit). */
export async function acceptUserMessage(
  turn: Turn,
  request: UserRequest,
  /** An edit: the parent of the edited message (a new branch); default the active leaf. */
  parentId?: string | null,
  /** Files and images the user attached: texts become blocks of the content, images image parts. */
  attachments?: PreparedAttachments,
): Promise<StoredMessage> {
  const { deps, sessionId, profile, session } = turn;
  // A manual compaction phrase is a command to the app, not part of the conversation: the user
  // sees it, the model never does.
  const { text } = request;
  const command = request.manual !== null;
  const withFiles = attachments ? contentWithAttachments(text, attachments.blocks) : text;
  const user = await userContent(turn, deps.newId(), withFiles);
  if (attachments && attachments.refs.length > 0) user.meta = { ...user.meta, attachments: attachments.refs };
  const stored = deps.sessions.commit(
    sessionId,
    {
      // An edit starts a branch of work: its message is a task the ledger always carries (userWords.ts).
      messages: [
        {
          ...user,
          visibility: command ? USER_ONLY : VISIBLE_TO_ALL,
          ...(parentId !== undefined && !command ? { meta: { ...user.meta, branchStart: true } } : {}),
        },
      ],
      ...(parentId === undefined ? {} : { parentId }),
    },
    { model: profile.model },
  );
  const message = stored.messages[0]!;
  // The row after the message, for the session.updated that says the session is busy.
  turn.shown = stored.session;
  // An untitled session is named after its first request, so the list and its search mean
  // something without the user renaming every session (a rename later wins). (The row is the
  // store's after the message: a rename while a long paste was counted in slices wins too.)
  const untitled = !command && session.title === '' && stored.session.title === '';
  const title = untitled ? titleFrom(text) || (attachments?.refs[0]?.name ?? '') : '';
  if (title !== '') turn.shown = deps.store.sessions.rename(sessionId, title);
  deps.emit({ type: 'message.complete', sessionId, message });
  return message;
}
