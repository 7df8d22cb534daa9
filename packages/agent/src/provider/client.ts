import OpenAI from 'openai';
import { ToolCallAssembler } from './assemble';
import { ProviderError, classifyError } from './errors';
import { toSdkMessages } from './messages';
import { DEFAULT_RETRY_POLICY, withRetries, type RetryPolicy } from './retry';
import type {
  CompleteRequest,
  ConnectionTest,
  ProviderClientOptions,
  ProviderProblem,
  ProviderTarget,
  StreamChatRequest,
  StreamChatResult,
} from './types';

/** Local servers (Ollama, LM Studio, vLLM) take any key; the SDK insists on one. */
export const NO_KEY = 'not-needed';

export interface ProviderClient {
  streamChat(req: StreamChatRequest): Promise<StreamChatResult>;
  /** One non-streaming answer (summaries), on the profile's compaction model when it has one. */
  complete(req: CompleteRequest): Promise<string>;
  testConnection(): Promise<ConnectionTest>;
}

/**
 * A chat client for one provider profile over the openai SDK. The SDK's own retries are off
 * (maxRetries: 0) so the policy here — at most 3 retries on 429/5xx/network errors, honoring
 * Retry-After, exponential backoff with jitter — is the only one. Errors are ProviderErrors.
 * Abort: `streamChat` resolves with what streamed so far and `aborted: true`; `complete` throws a
 * ProviderError of kind 'aborted'.
 */
export function createProviderClient(
  target: ProviderTarget,
  apiKey: string | null | undefined,
  opts: ProviderClientOptions = {},
): ProviderClient {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
  const now = opts.now ?? Date.now;
  const defaultHeaders: Record<string, string> =
    target.preset === 'openrouter' ? { 'HTTP-Referer': 'https://threadline.app', 'X-Title': 'Threadline' } : {};
  const sdk = new OpenAI({
    baseURL: target.baseUrl,
    apiKey: apiKey && apiKey.length > 0 ? apiKey : NO_KEY,
    maxRetries: 0,
    timeout: opts.timeoutMs ?? 300_000,
    defaultHeaders,
  });

  async function streamOnce(
    req: StreamChatRequest,
    attempt: number,
    sink: { content: string; emitted: boolean },
  ): Promise<StreamChatResult> {
    const calls = new ToolCallAssembler(opts.newId);
    let finishReason: string | null = null;
    let usage: StreamChatResult['usage'] = null;
    const stream = await sdk.chat.completions.create(
      {
        model: target.model,
        messages: toSdkMessages(req.messages),
        ...(req.tools && req.tools.length > 0
          ? { tools: req.tools as OpenAI.Chat.Completions.ChatCompletionTool[] }
          : {}),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: req.signal },
    );
    for await (const chunk of stream) {
      if (chunk.usage)
        usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      if (choice.finish_reason) finishReason = choice.finish_reason;
      const text = choice.delta?.content;
      if (text) {
        sink.content += text;
        sink.emitted = true;
        req.onDelta?.(text);
      }
      if (choice.delta?.tool_calls) for (const d of calls.add(choice.delta.tool_calls)) req.onToolCallDelta?.(d);
    }
    // The SDK ends the iteration quietly when the signal fires mid-stream: check it ourselves.
    if (req.signal?.aborted)
      return {
        content: sink.content,
        toolCalls: [],
        finishReason: null,
        usage: null,
        aborted: true,
        attempts: attempt + 1,
      };
    // No finish_reason (and so no [DONE] before it): the provider stopped mid-answer. Not an
    // answer: retried while nothing was shown, else the turn keeps the text marked partial.
    if (finishReason === null)
      throw new ProviderError('server', 'The answer stream ended before the provider finished it (no finish_reason).');
    return {
      content: sink.content,
      toolCalls: calls.result(),
      finishReason,
      usage,
      aborted: false,
      attempts: attempt + 1,
    };
  }

  return {
    async streamChat(req) {
      let sink = { content: '', emitted: false };
      let attempts = 0;
      try {
        return await withRetries(
          (attempt) => {
            attempts = attempt + 1;
            sink = { content: '', emitted: false };
            return streamOnce(req, attempt, sink);
          },
          policy,
          {
            signal: req.signal,
            canRetry: () => !sink.emitted || req.onRetry !== undefined,
            onRetry: (info) => req.onRetry?.({ ...info, partialDiscarded: sink.emitted }),
          },
        );
      } catch (err) {
        const e = classifyError(err, req.signal);
        if (e.kind === 'aborted')
          return { content: sink.content, toolCalls: [], finishReason: null, usage: null, aborted: true, attempts };
        throw e;
      }
    },

    async complete(req) {
      const model = req.model ?? target.compactionModel ?? target.model;
      const res = await withRetries(
        () =>
          sdk.chat.completions.create(
            { model, messages: toSdkMessages(req.messages), ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}) },
            { signal: req.signal },
          ),
        policy,
        { signal: req.signal },
      );
      return res.choices[0]?.message?.content ?? '';
    },

    async testConnection() {
      const t0 = now();
      // A test answers in seconds or says it could not: the chat timeout (minutes) is for answers.
      const quick = { timeout: opts.testTimeoutMs ?? 15_000 };
      try {
        const models = await sdk.models.list(quick);
        const ids = models.data.map((m) => m.id);
        const listed = ids.includes(target.model);
        const message = listed
          ? `Connected to ${target.baseUrl}; model "${target.model}" is available.`
          : `Connected to ${target.baseUrl}, but model "${target.model}" is not among its ${ids.length} models.`;
        const ok = listed || ids.length === 0;
        return { ok, message, latencyMs: now() - t0, ...(ok ? {} : { problem: 'unknown_model' as const }) };
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

/** What the user has to fix, from what went wrong. */
function problemOf(e: ProviderError): ProviderProblem {
  if (e.kind === 'auth') return 'auth';
  if (e.kind === 'network') return 'unreachable';
  return 'other';
}

export { ProviderError };
