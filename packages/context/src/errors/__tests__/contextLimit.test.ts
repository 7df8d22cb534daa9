import { describe, expect, it } from 'vitest';
import { ContextLimitError, isContextLimitError } from '..';

/** Shaped like the openai SDK's APIError: status, message "<status> <text>", `error` = body.error. */
function apiError(status: number, body: unknown): Error {
  const inner = (body as { error?: { message?: string } }).error;
  const err = new Error(`${status} ${inner?.message ?? JSON.stringify(body)}`) as Error & Record<string, unknown>;
  err.status = status;
  err.error = inner ?? body;
  return err;
}

const contextErrors: Array<[string, unknown]> = [
  [
    'OpenAI chat completions',
    apiError(400, {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 131542 tokens (130900 in the messages, 642 in the functions). Please reduce the length of the messages or functions.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    }),
  ],
  [
    'OpenAI Responses API',
    apiError(400, {
      error: {
        message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
        type: 'invalid_request_error',
        param: 'input',
        code: 'context_length_exceeded',
      },
    }),
  ],
  [
    'Azure OpenAI',
    apiError(400, {
      error: {
        message:
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9127 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
        status: 400,
      },
    }),
  ],
  [
    'Anthropic-compatible (prompt too long)',
    apiError(400, {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 215873 tokens > 200000 maximum' },
    }),
  ],
  [
    'Anthropic-compatible (max_tokens)',
    apiError(400, {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'input length and `max_tokens` exceed context limit: 197234 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      },
    }),
  ],
  [
    'Gemini (OpenAI-compatible endpoint, array body)',
    apiError(400, [
      {
        error: {
          code: 400,
          message: 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).',
          status: 'INVALID_ARGUMENT',
        },
      },
    ]),
  ],
  [
    'Ollama',
    apiError(500, {
      error: { message: 'the input length exceeds the context length', type: 'api_error', param: null, code: null },
    }),
  ],
  ['Ollama (runner)', new Error('prompt too long; exceeded max context length by 1503 tokens')],
  [
    'LM Studio',
    apiError(400, {
      error:
        'Trying to keep the first 6241 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input',
    }),
  ],
  [
    'llama.cpp server (LM Studio / local)',
    apiError(400, {
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 9000,
        n_ctx: 8192,
      },
    }),
  ],
  [
    'vLLM',
    apiError(400, {
      object: 'error',
      message:
        "This model's maximum context length is 32768 tokens. However, you requested 33012 tokens (32012 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    }),
  ],
  [
    'vLLM (v1 engine)',
    apiError(400, {
      object: 'error',
      message:
        'The decoder prompt (length 40123) is longer than the maximum model length of 32768. Make sure that `max_model_len` is no smaller than the number of text tokens.',
      type: 'BadRequestError',
      code: 400,
    }),
  ],
  [
    'OpenRouter',
    apiError(400, {
      error: {
        message:
          'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 170336 tokens (162144 of text input, 8192 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
        code: 400,
        metadata: { provider_name: null },
      },
    }),
  ],
  [
    'DeepSeek',
    apiError(400, {
      error: {
        message:
          "This model's maximum context length is 65536 tokens. However, you requested 70193 tokens (70193 in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_request_error',
      },
    }),
  ],
  ['a raw JSON body string', '{"error":{"message":"blah","code":"context_length_exceeded"}}'],
  ['our own typed error', new ContextLimitError()],
];

const otherErrors: Array<[string, unknown]> = [
  [
    'OpenAI quota (429)',
    apiError(429, {
      error: {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    }),
  ],
  [
    'OpenAI quota text without a status',
    new Error(
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs.',
    ),
  ],
  [
    'OpenAI TPM rate limit',
    apiError(429, {
      error: {
        message:
          'Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 26000, Requested 8000. Please try again in 8s.',
        type: 'tokens',
        code: 'rate_limit_exceeded',
      },
    }),
  ],
  [
    'Anthropic overloaded',
    apiError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
  ],
  [
    'invalid key',
    apiError(401, {
      error: {
        message:
          'Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.',
        code: 'invalid_api_key',
      },
    }),
  ],
  ['network', new TypeError('fetch failed')],
  ['model not found (Ollama)', apiError(404, { error: { message: 'model "llama9" not found, try pulling it first' } })],
  [
    'a too-long string argument',
    apiError(400, {
      error: {
        message:
          "Invalid 'messages[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 12000000 instead.",
        code: 'string_above_max_length',
      },
    }),
  ],
  ['nothing', undefined],
];

describe('isContextLimitError', () => {
  it.each(contextErrors)('recognizes %s', (_name, err) => {
    expect(isContextLimitError(err)).toBe(true);
  });
  it.each(otherErrors)('does not mistake %s for a context overflow', (_name, err) => {
    expect(isContextLimitError(err)).toBe(false);
  });
});
