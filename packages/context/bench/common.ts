import type { ChatMessage, Strategy } from '@threadline/protocol';
import {
  buildView,
  compact,
  extractiveSummarizer,
  historyFromChatMessages,
  MemoryTokenCache,
  type CompactResult,
} from '../src/index';

// What every part of the context bench shares: the model it counts for and how it prints.
export const MODEL = 'gpt-4o';
export const out = (s = ''): void => void process.stdout.write(s + '\n');
export const fmt = (ms: number): string => `${ms.toFixed(2)} ms`;

export function textOf(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => [m.content ?? '', ...(m.tool_calls ?? []).map((c) => c.function.arguments)].join('\n'))
    .join('\n');
}

/**
 * The cold-compaction case of the bench (largest.ts, and coldChild.ts in a fresh process): the
 * messages counted from scratch, then an automatic compaction at 90 % of a window, extractive summary.
 */
export async function compactFromScratch(
  messages: ChatMessage[],
  strategy: Strategy,
  /** Called once the messages are counted (the cold bench splits its time there). */
  onCounted?: () => void,
): Promise<CompactResult> {
  const tokenCache = new MemoryTokenCache();
  const history = historyFromChatMessages(messages, { model: MODEL, sessionId: 't', tokenCache });
  onCounted?.();
  const before = buildView({ history, model: MODEL, tokenCache });
  return compact({
    history,
    strategy,
    model: MODEL,
    window: Math.ceil(before.tokens / 0.9),
    trigger: 'auto',
    threshold: 0.85,
    summarizer: extractiveSummarizer,
    tokenCache,
    now: () => 0,
  });
}
