// The texts the engine writes into a conversation or recognizes in it: the marker of an
// interrupted turn, the synthetic result of a call that never got one, an old image's placeholder,
// the reason given when compaction gives up. A leaf: every folder may import it, it imports
// nothing of the engine.
import type { StoredMessage } from '@threadline/protocol';

/** The texts that mark a turn the user interrupted (the runtime writes `<turn_aborted>…`). */
const ABORT_MARKERS = ['<turn-aborted>', '<turn_aborted>'];

/** A message that records an interrupted turn: its kind says so, or a short text holds a marker. */
export function isAbortMarker(m: StoredMessage): boolean {
  if (m.kind === 'turn_aborted') return true;
  const c = m.content ?? '';
  return c.length < 4096 && ABORT_MARKERS.some((k) => c.includes(k));
}

/** Content of the synthetic result for a tool call that never got one. */
export const ABORTED_TOOL_OUTPUT = 'aborted';

/** What an image becomes in the view once it is old: a short placeholder naming the file. */
export const imagePlaceholder = (name: string): string => `[image: ${name}]`;

/** The reason of the notice when recovery compactions are used up, word for word. */
export const MAX_COMPACTION_ATTEMPTS_MESSAGE =
  'Reached maximum compaction attempts. Please start a new session to continue.';

/**
 * The marker in place of the middle of a message too large to carry whole (a pasted spec, a long
 * first request): how much was left out and how the model reads it whole.
 */
export const messageCutMarker = (tokens: number, messageId: string): string =>
  `[…${tokens} tokens of this message left out here to fit the context window; read it whole with read_tool_output(id: "${messageId}", offset, limit)…]`;
