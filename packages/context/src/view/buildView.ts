import {
  toChatMessage,
  type ChatMessage,
  type CompactionRecord,
  type MessageKind,
  type StoredMessage,
} from '@threadline/protocol';
import { countMessageTokens, TOKENS_PER_REQUEST, type TokenCache } from '../tokens/count';
import { normalizeView } from '../normalize/normalize';
import { orderAgentMessages } from './order';
import { imageHorizon, withImages } from './images';
import { encoderFor } from '../tokens/encoder';

export interface ViewBreakdown {
  system: number;
  memory: number;
  summaries: number;
  messages: number;
  toolOutputs: number;
}

export type ViewEntryKind = MessageKind | 'system_prompt' | 'memory_block' | 'synthetic_result';

/** One message of the view and where it came from (`id` null for what the view made up). */
export interface ViewEntry {
  id: string | null;
  kind: ViewEntryKind;
  tokens: number;
  message: ChatMessage;
}

export interface View {
  messages: ChatMessage[];
  entries: ViewEntry[];
  /** Estimated prompt tokens of the whole request. */
  tokens: number;
  breakdown: ViewBreakdown;
}

export interface BuildViewInput {
  history: readonly StoredMessage[];
  compactions?: readonly CompactionRecord[];
  /** The CFPM `[CFPM_RUNTIME_MEMORY_V1]` block (or the priority-chain digest), injected each turn. */
  memoryBlock?: string | null;
  systemPrompt?: string | null;
  model: string;
  tokenCache?: TokenCache;
}

/** A history message's tokens: the persisted count when the store has one, else counted (cached). */
export function storedTokens(m: StoredMessage, model: string, cache?: TokenCache): number {
  return m.tokens ?? countMessageTokens(toChatMessage(m), model, cache);
}

export function breakdownSlot(kind: ViewEntryKind, role: ChatMessage['role']): keyof ViewBreakdown {
  if (kind === 'system_prompt' || role === 'system') return 'system';
  if (kind === 'memory_block' || kind === 'memory_snapshot') return 'memory';
  if (kind === 'summary' || kind === 'continuation') return 'summaries';
  if (role === 'tool') return 'toolOutputs';
  return 'messages';
}

/**
 * The model's view of a session: a pure function of history + active compactions + memory +
 * system prompt. Order: system prompt, the history's leading system messages, the
 * memory block (as a user message: it is data from earlier in the session, not instructions),
 * then the conversation with inserted messages at their anchors; normalized; counted.
 */
export function buildView(input: BuildViewInput): View {
  const { model, tokenCache } = input;
  const ordered = orderAgentMessages(input.history, input.compactions ?? []);
  // The pre-step for attachments: images of messages newer than the last compaction are image
  // parts; older ones are a placeholder naming the file (view/images.ts).
  const horizon = imageHorizon(input.compactions ?? []);
  const countText = (text: string): number => encoderFor(model).count(text);
  const historyItem = (m: StoredMessage): Item => {
    const { message, extra } = withImages(m, toChatMessage(m), horizon, countText);
    return { id: m.id, kind: m.kind, message, tokens: storedTokens(m, model, tokenCache) + extra };
  };
  type Item = { id: string | null; kind: ViewEntryKind; message: ChatMessage; tokens: number | null };
  const items: Item[] = [];
  if (input.systemPrompt) {
    items.push({
      id: null,
      kind: 'system_prompt',
      message: { role: 'system', content: input.systemPrompt },
      tokens: null,
    });
  }
  let k = 0;
  while (k < ordered.length && ordered[k]!.msg.role === 'system') {
    items.push(historyItem(ordered[k++]!.msg));
  }
  if (input.memoryBlock) {
    items.push({ id: null, kind: 'memory_block', message: { role: 'user', content: input.memoryBlock }, tokens: null });
  }
  for (; k < ordered.length; k++) {
    items.push(historyItem(ordered[k]!.msg));
  }

  type Tagged = ChatMessage & { __item: Item | null };
  const normalized = normalizeView<Tagged>(
    items.map((it) => ({ ...it.message, __item: it })),
    (callId) => ({ role: 'tool', content: 'aborted', tool_call_id: callId, __item: null }),
  );

  const breakdown: ViewBreakdown = { system: 0, memory: 0, summaries: 0, messages: TOKENS_PER_REQUEST, toolOutputs: 0 };
  const entries: ViewEntry[] = [];
  const messages: ChatMessage[] = [];
  for (const n of normalized) {
    const it = n.__item;
    const message: ChatMessage = it ? it.message : { role: 'tool', content: n.content, tool_call_id: n.tool_call_id };
    const kind: ViewEntryKind = it ? it.kind : 'synthetic_result';
    const tokens = it?.tokens ?? countMessageTokens(message, model, tokenCache);
    breakdown[breakdownSlot(kind, message.role)] += tokens;
    entries.push({ id: it ? it.id : null, kind, tokens, message });
    messages.push(message);
  }
  const tokens = breakdown.system + breakdown.memory + breakdown.summaries + breakdown.messages + breakdown.toolOutputs;
  return { messages, entries, tokens, breakdown };
}
