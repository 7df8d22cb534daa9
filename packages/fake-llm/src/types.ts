import * as z from 'zod';

/** One image part a chat request carried, as a test checks it (the bytes by their hash). */
export interface RecordedImage {
  /** Index of the message that held it. */
  message: number;
  /** `data:` URL's media type, or 'url' for a remote address. */
  mime: string;
  bytes: number;
  sha256: string | null;
  /** The URL itself when it is not a data URL. */
  url?: string;
}

/** A tool call the fake model makes. `arguments` as a string is sent verbatim (malformed JSON allowed). */
export const FakeToolCallSchema = z.object({
  name: z.string().min(1),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default('{}'),
});
export type FakeToolCall = z.input<typeof FakeToolCallSchema>;

/** A normal answer: text and/or tool calls, streamed in chunks of `chunkSize` characters. */
export const FakeAnswerSchema = z.object({
  content: z.string().optional(),
  /** A reasoning model's thinking, streamed before the content in `reasoningField`. */
  reasoning: z.string().optional(),
  /** `reasoning_content` (DeepSeek, vLLM; the default) or `reasoning` (OpenRouter, Ollama). */
  reasoningField: z.enum(['reasoning_content', 'reasoning']).optional(),
  toolCalls: z.array(FakeToolCallSchema).optional(),
  /** Pause before each streamed chunk (a slow stream). */
  delayMsPerChunk: z.number().int().nonnegative().optional(),
  /** Characters per content chunk and per argument fragment (default 8). */
  chunkSize: z.number().int().positive().optional(),
  /** Destroy the socket after this many SSE chunks (0 = before any byte; non-streaming: before the body). */
  dropAfterChunks: z.number().int().nonnegative().optional(),
  finishReason: z.enum(['stop', 'length', 'tool_calls', 'content_filter']).optional(),
  /**
   * End the stream cleanly after this many SSE chunks, without the finish_reason chunk, the usage
   * chunk or `[DONE]` (a provider killed mid-answer behind a proxy that closes the response).
   */
  endAfterChunks: z.number().int().nonnegative().optional(),
});
export type FakeAnswer = z.input<typeof FakeAnswerSchema>;

/** An HTTP error answer. Without `body`, an OpenAI-style body is built from status/message/type/code. */
export const FakeErrorSchema = z.object({
  error: z.object({
    status: z.number().int().min(400).max(599),
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.string().nullable().optional(),
    /** Sent as the Retry-After header: seconds (number) or any string (e.g. an HTTP date). */
    retryAfter: z.union([z.number().nonnegative(), z.string()]).optional(),
    /** More response headers, e.g. `retry-after-ms` or `x-should-retry` (the openai SDK reads both). */
    headers: z.record(z.string(), z.string()).optional(),
    /** A raw JSON body that replaces the built one. */
    body: z.unknown().optional(),
  }),
});
export type FakeError = z.input<typeof FakeErrorSchema>;

export const FakeReplySchema = z.union([FakeErrorSchema, FakeAnswerSchema]);
export type FakeReply = FakeAnswer | FakeError;

export const FakeMatchSchema = z.object({
  lastUserIncludes: z.string().optional(),
  lastToolResultIncludes: z.string().optional(),
  hasTools: z.boolean().optional(),
  systemIncludes: z.string().optional(),
  /** true: only summary requests; false: only other requests. Unset rules never see summary requests. */
  summaryRequest: z.boolean().optional(),
  /** The same for session-title requests ("Title this conversation…"): unset rules never see them. */
  titleRequest: z.boolean().optional(),
});
export type FakeMatch = z.infer<typeof FakeMatchSchema>;

export const FakeRuleSchema = z.object({
  match: FakeMatchSchema.optional(),
  reply: FakeReplySchema,
  /** How many requests this rule answers before it is spent (unset = forever). */
  times: z.number().int().positive().optional(),
});

/** A JSON-file rule. Programmatic rules may also give `reply` as a function of the request. */
export interface FakeRule {
  match?: FakeMatch;
  reply: FakeReply | ((req: ChatRequestView) => FakeReply);
  times?: number;
}

export const FakeRulesFileSchema = z.union([
  z.array(FakeRuleSchema),
  z.object({ rules: z.array(FakeRuleSchema), defaultReply: FakeReplySchema.optional() }),
]);

export const ErrorStyleSchema = z.enum(['openai', 'anthropic', 'ollama', 'lmstudio']);
export type ErrorStyle = z.infer<typeof ErrorStyleSchema>;

/** The parts of an OpenAI chat message the fake model reads. */
export interface RequestMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
  tool_call_id?: string;
  name?: string;
}

/** A parsed chat completion request as rules and reply functions see it. */
export interface ChatRequestView {
  model: string;
  messages: RequestMessage[];
  tools: unknown[];
  stream: boolean;
  includeUsage: boolean;
  promptTokens: number;
  isSummaryRequest: boolean;
  lastUserText: string;
  /** Index of this chat request among all received (0-based). */
  index: number;
}

/** One HTTP request the server received, for tests to inspect what the model was sent. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined when none or invalid). */
  body: unknown;
  receivedAt: number;
  /**
   * When the request's head arrived, on the monotonic clock every process of the machine shares
   * (process.hrtime, in ms): the runtime bench compares it with a child process's send time.
   */
  receivedAtHrMs: number;
  /** Counted prompt tokens (chat completions only). */
  promptTokens?: number;
  /** Chat completions: how many chat requests were in flight when it arrived, itself included. */
  concurrent?: number;
  isSummaryRequest?: boolean;
  /**
   * The usage answered (also when the stream did not ask for it): cached_tokens are the tokens of
   * the longest prefix this request shares with an earlier one (promptCache.ts).
   */
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens: number };
  /** HTTP status answered (undefined while in flight or when the socket was dropped). */
  status?: number;
  /** The client went away before the answer was complete (abort or drop). */
  clientClosed: boolean;
  /** A local Ollama cut the prompt to its window without a word: how many messages it dropped. */
  silentlyDropped?: number;
  /** Strict mode refused the request's shape: the provider's sentence (absent otherwise). */
  rejected?: string;
  /** Chat completions: the `image_url` parts of its messages (absent when none). */
  images?: RecordedImage[];
}
