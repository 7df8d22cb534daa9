import type { ChatMessage, StoredMessage, TruncationPolicy } from '@threadline/protocol';
import { capFullOutput, truncateToolOutput } from '../truncate/truncate';
import { countMessageTokens, countMessageTokensWithContent, type TokenCache } from '../tokens/count';
import { isAbortMarker } from '../markers';

export interface IngestOptions {
  sessionId?: string;
  model: string;
  /** Write-time truncation of tool outputs, as the store applies it (default tokens / 5000). */
  policy?: TruncationPolicy;
  maxTokens?: number;
  createdAt?: number;
  tokenCache?: TokenCache;
}

/**
 * Turns plain OpenAI chat messages into history as the runtime would have stored them: ids and
 * seqs, tool outputs cut at write time (the capped full output kept beside), counts cached.
 * Used by the CLI, the bench and the tests on real transcripts.
 */
export function historyFromChatMessages(messages: readonly ChatMessage[], opts: IngestOptions): StoredMessage[] {
  const sessionId = opts.sessionId ?? 'session';
  return messages.map((m, i) => {
    const stored: StoredMessage = {
      id: `m${i}`,
      sessionId,
      seq: i,
      createdAt: opts.createdAt ?? 0,
      role: m.role,
      content: m.content,
      kind: 'normal',
      visibility: { user: true, agent: true },
      tokens: null,
    };
    if (m.tool_calls?.length) stored.tool_calls = m.tool_calls;
    if (m.tool_call_id !== undefined) stored.tool_call_id = m.tool_call_id;
    if (m.name !== undefined) stored.name = m.name;
    let contentTokens: number | undefined;
    if (m.role === 'tool' && m.content) {
      const cut = truncateToolOutput(m.content, {
        policy: opts.policy ?? 'tokens',
        maxTokens: opts.maxTokens,
        model: opts.model,
        outputId: m.tool_call_id,
      });
      if (cut.truncated) {
        stored.content = cut.text;
        stored.fullOutput = capFullOutput(m.content).text;
      } else contentTokens = cut.tokens;
    }
    if (isAbortMarker(stored)) stored.kind = 'turn_aborted';
    // A tool output kept whole was counted by its truncation: not counted a second time.
    stored.tokens =
      contentTokens === undefined
        ? countMessageTokens(stored, opts.model, opts.tokenCache)
        : countMessageTokensWithContent(stored, opts.model, contentTokens, opts.tokenCache);
    return stored;
  });
}
