import OpenAI from 'openai';
import { yieldToEventLoop } from '@threadline/context';
import { ToolCallAssembler } from './assemble';
import { ProviderError, asVisionRefusal, classifyError } from './errors';
import { toSdkMessages } from './messages';
import { readUsage } from './usage';
import { requestModel } from './serverWindow';
import { DEFAULT_MAX_RETRIES, canRetryStream, observeAttempts, type RetryInfo } from './retry';
import type {
  CompleteRequest,
  ConnectionTest,
  ProviderClientOptions,
  ProviderProblem,
  ProviderTarget,
  StreamChatRequest,
  StreamChatResult,
} from './types';
import { MODELS_LISTED_MAX } from '@threadline/protocol';

/** Parsing time of a streamed answer between two turns of the event loop (readStream). */
const STREAM_SLICE_MS = 8;

/** Local servers (Ollama, LM Studio, vLLM) take any key; the SDK insists on one. */
export const NO_KEY = 'not-needed';

export interface ProviderClient {
  streamChat(req: StreamChatRequest): Promise<StreamChatResult>;
  /** One non-streaming answer (summaries), on the profile's compaction model when it has one. */
  complete(req: CompleteRequest): Promise<string>;
  testConnection(): Promise<ConnectionTest>;
  /** The ids `GET /models` lists (sorted); throws a ProviderError when the provider cannot be asked. */
  listModels(): Promise<string[]>;
}

/**
 * A chat client for one provider profile over the openai SDK. The SDK retries requests (429, 5xx,
 * 408/409, connection errors; `x-should-retry`, `retry-after-ms` and `Retry-After` honoured), at
 * most `maxRetries` times in all (3). Ours is only what the SDK cannot do: a stream whose
 * body failed after its headers but before anything reached the caller is asked again, within the
 * same budget; and every retry is reported through `onRetry` for the user's notice.
 * Errors are ProviderErrors. Abort: `streamChat` resolves with what streamed so far and
 * `aborted: true`; `complete` throws a ProviderError of kind 'aborted'.
 */
export function createProviderClient(
  target: ProviderTarget,
  apiKey: string | null | undefined,
  opts: ProviderClientOptions = {},
): ProviderClient {
  // The model requests name: an Ollama model made to run with the user's window, when there is one.
  target = { ...target, model: requestModel(target) };
  const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
  const now = opts.now ?? Date.now;
  const defaultHeaders: Record<string, string> =
    target.preset === 'openrouter' ? { 'HTTP-Referer': 'https://threadline.app', 'X-Title': 'Threadline' } : {};
  const sdk = new OpenAI({
    baseURL: target.baseUrl,
    apiKey: apiKey && apiKey.length > 0 ? apiKey : NO_KEY,
    maxRetries,
    timeout: opts.timeoutMs ?? 300_000,
    defaultHeaders,
  });

  /** The SDK for one call, its attempts watched (see observeAttempts). */
  function watched(onRetry: ((info: RetryInfo) => void) | undefined, signal: AbortSignal | undefined) {
    const seen = observeAttempts(maxRetries, onRetry, signal);
    return { seen: seen.state, call: sdk.withOptions({ fetch: seen.fetch }) };
  }

  /** Reads one answer stream; `sink.shown` once anything reached the caller. */
  async function readStream(
    stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
    req: StreamChatRequest,
    sink: { content: string; shown: boolean },
    attempts: number,
  ): Promise<StreamChatResult> {
    const calls = new ToolCallAssembler(opts.newId);
    let finishReason: string | null = null;
    let usage: StreamChatResult['usage'] = null;
    let reasoning = '';
    // A long answer arrives faster than it is parsed: the SDK then hands over buffered chunks
    // one microtask after another, and nothing else would run until the buffer is drained.
    // Every STREAM_SLICE_MS the loop gives the event loop a turn (other requests, Stop).
    let sliceStart = performance.now();
    for await (const chunk of stream) {
      if (performance.now() - sliceStart >= STREAM_SLICE_MS) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
      if (chunk.usage) usage = readUsage(chunk.usage) ?? usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      if (choice.finish_reason) finishReason = choice.finish_reason;
      const thought = reasoningOf(choice.delta);
      if (thought) {
        reasoning += thought;
        sink.shown = true;
        req.onReasoningDelta?.(thought);
      }
      const text = choice.delta?.content;
      if (text) {
        sink.content += text;
        sink.shown = true;
        req.onDelta?.(text);
      }
      if (choice.delta?.tool_calls)
        for (const d of calls.add(choice.delta.tool_calls)) {
          sink.shown ||= req.onToolCallDelta !== undefined;
          req.onToolCallDelta?.(d);
        }
    }
    // The SDK ends the iteration quietly when the signal fires mid-stream: check it ourselves.
    if (req.signal?.aborted) return abortedWith(sink.content, attempts);
    // No finish_reason (and so no [DONE] before it): the provider stopped mid-answer. Not an
    // answer: asked again while nothing was shown, else the turn keeps the text marked partial.
    if (finishReason === null)
      throw new ProviderError('server', 'The answer stream ended before the provider finished it (no finish_reason).');
    return {
      content: sink.content,
      reasoning,
      toolCalls: calls.result(),
      finishReason,
      usage,
      aborted: false,
      attempts,
    };
  }

  return {
    async streamChat(req) {
      const { seen, call } = watched(req.onRetry, req.signal);
      const hadImages = req.messages.some((m) => (m.images?.length ?? 0) > 0);
      /** A failure is final here: what streamed so far when aborted, else the error. */
      const settle = (err: unknown, sink: { content: string }): StreamChatResult => {
        const e = asVisionRefusal(
          Object.assign(classifyError(err, req.signal), { attempts: Math.max(1, seen.attempts) }),
          hadImages,
        );
        if (e.kind !== 'aborted') throw e;
        return abortedWith(sink.content, e.attempts);
      };
      for (;;) {
        const sink = { content: '', shown: false };
        let stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>;
        try {
          stream = await call.chat.completions.create(
            {
              model: target.model,
              messages: toSdkMessages(req.messages, req.resolveImage),
              ...(req.tools && req.tools.length > 0
                ? { tools: req.tools as OpenAI.Chat.Completions.ChatCompletionTool[] }
                : {}),
              stream: true,
              stream_options: { include_usage: true },
            },
            // The retries left for the SDK: the budget is shared with our stream retries.
            { signal: req.signal, maxRetries: maxRetries - seen.attempts },
          );
        } catch (err) {
          return settle(err, sink); // the SDK has already retried what it could
        }
        try {
          return await readStream(stream, req, sink, seen.attempts);
        } catch (err) {
          const e = classifyError(err, req.signal);
          if (e.kind === 'aborted' || !canRetryStream(e, sink.shown, seen.attempts, maxRetries)) return settle(e, sink);
          req.onRetry?.({ attempt: seen.attempts, maxRetries, delayMs: 0, error: e });
        }
      }
    },

    async complete(req) {
      const { seen, call } = watched(req.onRetry, req.signal);
      const model = req.model ?? target.compactionModel ?? target.model;
      try {
        const res = await call.chat.completions.create(
          {
            model,
            messages: toSdkMessages(req.messages),
            ...(req.tools && req.tools.length > 0
              ? { tools: req.tools as OpenAI.Chat.Completions.ChatCompletionTool[] }
              : {}),
            ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}),
          },
          { signal: req.signal },
        );
        const usage = readUsage(res.usage);
        if (usage) req.onUsage?.(usage);
        return res.choices[0]?.message?.content ?? '';
      } catch (err) {
        throw Object.assign(classifyError(err, req.signal), { attempts: Math.max(1, seen.attempts) });
      }
    },

    async listModels() {
      try {
        const page = await sdk.models.list({ timeout: opts.testTimeoutMs ?? 15_000, maxRetries: 0 });
        return [...new Set(page.data.map((m) => m.id))].sort((a, b) => a.localeCompare(b));
      } catch (err) {
        throw classifyError(err);
      }
    },

    async testConnection() {
      const t0 = now();
      // A test answers in seconds or says it could not: the chat timeout (minutes) is for answers.
      const quick = { timeout: opts.testTimeoutMs ?? 15_000, maxRetries: 0 };
      try {
        const models = await sdk.models.list(quick);
        const ids = models.data.map((m) => m.id);
        const listed = ids.includes(target.model);
        const offered = [...ids].sort().slice(0, 20);
        const more = ids.length > offered.length ? ` and ${ids.length - offered.length} more` : '';
        const message = listed
          ? `Connected to ${target.baseUrl}; model "${target.model}" is available.`
          : `Connected to ${target.baseUrl}, but it does not offer model "${target.model}"; it offers ${offered.join(', ')}${more}.`;
        const ok = listed || ids.length === 0;
        const all = ids.length > 0 ? { models: [...ids].sort().slice(0, MODELS_LISTED_MAX) } : {};
        return {
          ok,
          message,
          latencyMs: now() - t0,
          ...all,
          ...(ok ? {} : { problem: 'unknown_model' as const, offered }),
        };
      } catch (err) {
        const e = classifyError(err);
        // Some compatible servers have no /models: a one-token chat request proves the endpoint instead.
        if (e.status === 404 || e.status === 405) {
          try {
            await sdk.chat.completions.create(
              { model: target.model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 },
              quick,
            );
            return {
              ok: true,
              message: `Connected to ${target.baseUrl}; model "${target.model}" answered.`,
              latencyMs: now() - t0,
            };
          } catch (err2) {
            const e2 = classifyError(err2);
            // The endpoint answered, but not for this model.
            const problem = e2.status === 404 ? 'unknown_model' : problemOf(e2);
            return { ok: false, message: e2.message, latencyMs: null, problem };
          }
        }
        return { ok: false, message: e.message, latencyMs: null, problem: problemOf(e) };
      }
    },
  };
}

/** What streamed before the signal fired (half-streamed tool calls are not runnable). */
function abortedWith(content: string, attempts: number): StreamChatResult {
  return { content, reasoning: '', toolCalls: [], finishReason: null, usage: null, aborted: true, attempts };
}

/**
 * The thinking a reasoning model streams beside its answer: `reasoning_content` (DeepSeek, vLLM,
 * Qwen), `reasoning` (OpenRouter, Ollama). Not in the SDK's types, so read from the raw delta.
 */
function reasoningOf(delta: unknown): string {
  if (!delta || typeof delta !== 'object') return '';
  const d = delta as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof d.reasoning_content === 'string') return d.reasoning_content;
  if (typeof d.reasoning === 'string') return d.reasoning;
  return '';
}

/** What the user has to fix, from what went wrong. */
function problemOf(e: ProviderError): ProviderProblem {
  if (e.kind === 'auth') return 'auth';
  if (e.kind === 'network') return 'unreachable';
  return 'other';
}

export { ProviderError };
