import { countText } from './tokens';
import type { ChatRequestView, FakeAnswer } from './types';

export interface BuiltToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** OpenAI's and OpenRouter's field for cached prompt tokens. */
  prompt_tokens_details?: { cached_tokens: number; audio_tokens: number };
  /** DeepSeek's. */
  prompt_cache_hit_tokens?: number;
  prompt_cache_miss_tokens?: number;
  completion_tokens_details?: {
    reasoning_tokens: number;
    audio_tokens: number;
    accepted_prediction_tokens: number;
    rejected_prediction_tokens: number;
  };
}

/** The answer resolved into concrete text, tool calls with ids, finish reason and usage. */
export interface BuiltAnswer {
  id: string;
  created: number;
  model: string;
  content: string | null;
  /** The thinking streamed before the content, and the field it goes in. */
  reasoning: { text: string; field: 'reasoning_content' | 'reasoning' } | null;
  toolCalls: BuiltToolCall[];
  finishReason: string;
  usage: Usage;
}

const FINGERPRINT = 'fp_fakellm';

/** How usage names cached prompt tokens: OpenAI (and OpenRouter) or DeepSeek's own fields. */
export type UsageStyle = 'openai' | 'deepseek';

export function buildAnswer(
  req: ChatRequestView,
  answer: FakeAnswer,
  cachedTokens = 0,
  style: UsageStyle = 'openai',
): BuiltAnswer {
  const toolCalls = (answer.toolCalls ?? []).map((tc, i) => ({
    id: `call_${req.index}_${i}`,
    name: tc.name,
    arguments: typeof tc.arguments === 'string' ? tc.arguments : JSON.stringify(tc.arguments ?? {}),
  }));
  const content = answer.content ?? (toolCalls.length > 0 ? null : '');
  const completionTokens =
    countText(content ?? '') + toolCalls.reduce((n, tc) => n + countText(tc.name) + countText(tc.arguments), 0);
  return {
    id: `chatcmpl-fake${req.index}`,
    created: Math.floor(Date.now() / 1000),
    model: req.model,
    content,
    reasoning: answer.reasoning
      ? { text: answer.reasoning, field: answer.reasoningField ?? 'reasoning_content' }
      : null,
    toolCalls,
    finishReason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: {
      prompt_tokens: req.promptTokens,
      completion_tokens: completionTokens,
      total_tokens: req.promptTokens + completionTokens,
      ...(style === 'deepseek'
        ? { prompt_cache_hit_tokens: cachedTokens, prompt_cache_miss_tokens: req.promptTokens - cachedTokens }
        : {
            prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
            completion_tokens_details: {
              reasoning_tokens: 0,
              audio_tokens: 0,
              accepted_prediction_tokens: 0,
              rejected_prediction_tokens: 0,
            },
          }),
    },
  };
}

/** The non-streaming `chat.completion` object. */
export function completionBody(a: BuiltAnswer): unknown {
  const message: Record<string, unknown> = { role: 'assistant', content: a.content, refusal: null, annotations: [] };
  if (a.reasoning) message[a.reasoning.field] = a.reasoning.text;
  if (a.toolCalls.length > 0) {
    message.tool_calls = a.toolCalls.map((tc) => ({
      id: tc.id,
      type: 'function',
      function: { name: tc.name, arguments: tc.arguments },
    }));
  }
  return {
    id: a.id,
    object: 'chat.completion',
    created: a.created,
    model: a.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: a.finishReason }],
    usage: a.usage,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  };
}

/** Splits by code points so a chunk never ends inside a surrogate pair. */
export function splitChunks(text: string, size: number): string[] {
  const cps = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(''));
  return out;
}

/**
 * The `chat.completion.chunk` objects of a stream, framed as OpenAI does: a role delta first, then
 * content deltas, then per tool call one delta with index/id/type/name and empty arguments followed
 * by argument fragments, then an empty delta with the finish reason, then (only when
 * `stream_options.include_usage`) a chunk with no choices and the usage. With include_usage every
 * earlier chunk carries `"usage": null`, as the real API does.
 */
export function streamChunks(a: BuiltAnswer, chunkSize: number, includeUsage: boolean): unknown[] {
  const base = {
    id: a.id,
    object: 'chat.completion.chunk',
    created: a.created,
    model: a.model,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const out: unknown[] = [chunk({ role: 'assistant', content: a.content === null ? null : '', refusal: null })];
  if (a.reasoning)
    for (const piece of splitChunks(a.reasoning.text, chunkSize)) out.push(chunk({ [a.reasoning.field]: piece }));
  for (const piece of splitChunks(a.content ?? '', chunkSize)) out.push(chunk({ content: piece }));
  a.toolCalls.forEach((tc, index) => {
    out.push(
      chunk({ tool_calls: [{ index, id: tc.id, type: 'function', function: { name: tc.name, arguments: '' } }] }),
    );
    for (const frag of splitChunks(tc.arguments, chunkSize))
      out.push(chunk({ tool_calls: [{ index, function: { arguments: frag } }] }));
  });
  out.push(chunk({}, a.finishReason));
  if (includeUsage) out.push({ ...base, choices: [], usage: a.usage });
  return out;
}
