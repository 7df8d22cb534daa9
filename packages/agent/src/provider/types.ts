import type { ChatMessage, PresetId, ServerWindow, ToolCall } from '@threadline/protocol';
import type { ToolCallDelta } from './assemble';
import type { RetryInfo } from './retry';
import type { ImageResolver } from './messages';

/** What the client needs of a provider profile (ProviderProfile fits). */
export interface ProviderTarget {
  baseUrl: string;
  model: string;
  /** A cheaper model for summaries; `complete` uses it when set. */
  compactionModel?: string | null;
  preset?: PresetId;
  /** A local server's window for the model (Ollama: the model made to run with the user's window, `requestModel`). */
  serverWindow?: ServerWindow | null;
}

/** A function tool as the chat completions API takes it. */
export interface FunctionToolSpec {
  type: 'function';
  function: { name: string; description?: string; parameters: object };
}

export interface StreamChatRequest {
  messages: ChatMessage[];
  tools?: FunctionToolSpec[];
  signal?: AbortSignal;
  onDelta?: (text: string) => void;
  onToolCallDelta?: (delta: ToolCallDelta) => void;
  /** The model's thinking as it streams (`reasoning_content` of DeepSeek, vLLM…; `reasoning` of OpenRouter). */
  onReasoningDelta?: (text: string) => void;
  /**
   * Called before each retry, for the user's notice ("Retrying in 2 s, attempt 1 of 3"): the SDK's
   * retries of the request and ours of a stream that failed before anything was shown. A stream
   * that already showed something is never retried (no duplicated text).
   */
  onRetry?: (info: RetryInfo) => void;
  /** The data URL of each image part of the messages (the attachments store). */
  resolveImage?: ImageResolver;
}

export interface StreamChatResult {
  content: string;
  /** The model's thinking, when the provider streams it apart from the answer ('' otherwise). */
  reasoning: string;
  /** Assembled from the deltas; empty when aborted (half-streamed arguments are not runnable). */
  toolCalls: ToolCall[];
  finishReason: string | null;
  /** From the final usage chunk (`stream_options.include_usage`); null when the provider sent none. */
  usage: CallUsage | null;
  /** The signal fired: `content` is what streamed before it. */
  aborted: boolean;
  attempts: number;
}

/** What the provider reported for one call (provider/usage.ts reads the dialects). */
export interface CallUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the provider's cache (0 when it reported none). */
  cachedTokens: number;
}

export interface CompleteRequest {
  messages: ChatMessage[];
  /**
   * Sent as they are (summaries that reuse the conversation's prefix carry its tools, or the
   * provider's cache would miss from the first message on).
   */
  tools?: FunctionToolSpec[];
  /** The usage of the answer, when the provider reported one. */
  onUsage?: (usage: CallUsage) => void;
  /** Overrides the profile's compaction model (and model). */
  model?: string;
  signal?: AbortSignal;
  maxTokens?: number;
  /** As in StreamChatRequest. */
  onRetry?: (info: RetryInfo) => void;
}

export interface ConnectionTest {
  ok: boolean;
  message: string;
  latencyMs: number | null;
  /** Why it failed, so the form can say it beside the field to fix. */
  problem?: ProviderProblem;
  /** With `unknown_model`: some of the models the server offers. */
  offered?: string[];
  /** Every model the server listed (sorted, at most MODELS_LISTED_MAX), for the form's picker. */
  models?: string[];
}

export type ProviderProblem = 'missing_key' | 'auth' | 'unreachable' | 'unknown_model' | 'other';

export interface ProviderClientOptions {
  /** Retries after the first attempt, the SDK's and ours together; default 3. */
  maxRetries?: number;
  /** Per-request timeout (ms) of the SDK; default 5 minutes. */
  timeoutMs?: number;
  /** Timeout of testConnection's requests; default 15 s. */
  testTimeoutMs?: number;
  /** Ids for tool calls a provider sent without one. */
  newId?: () => string;
  now?: () => number;
}
