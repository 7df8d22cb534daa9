import type { ErrorStyle, FakeError } from './types';

export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * The error each provider family really answers when the prompt is over the window.
 * Wording taken from the providers' own messages as users report them:
 * - OpenAI: 400 invalid_request_error / context_length_exceeded.
 * - Anthropic (and Anthropic-compatible gateways): 400 "prompt is too long: N tokens > M maximum".
 * - Ollama (OpenAI-compatible endpoint): 400 "prompt too long; exceeded max context length by N tokens".
 * - LM Studio: 400 with `{"error": "<string>"}` "Trying to keep the first N tokens when context the
 *   overflows. However, the model is loaded with context length of only M tokens, …" (sic).
 */
export function contextLengthError(style: ErrorStyle, window: number, tokens: number): ErrorAnswer {
  const headers = { 'content-type': 'application/json' };
  switch (style) {
    case 'openai':
      return {
        status: 400,
        headers,
        body: {
          error: {
            message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        },
      };
    case 'anthropic':
      return {
        status: 400,
        headers,
        body: {
          type: 'error',
          error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${window} maximum` },
        },
      };
    case 'ollama':
      return {
        status: 400,
        headers,
        body: {
          error: {
            message: `prompt too long; exceeded max context length by ${tokens - window} tokens`,
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        },
      };
    case 'lmstudio':
      return {
        status: 400,
        headers,
        body: {
          error: `Trying to keep the first ${tokens} tokens when context the overflows. However, the model is loaded with context length of only ${window} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`,
        },
      };
  }
}

const DEFAULT_MESSAGES: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'Invalid request.', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  404: {
    message: 'The model does not exist or you do not have access to it.',
    type: 'invalid_request_error',
    code: 'model_not_found',
  },
  429: {
    message: 'Rate limit reached for requests. Please try again later.',
    type: 'requests',
    code: 'rate_limit_exceeded',
  },
  500: {
    message: 'The server had an error while processing your request. Sorry about that!',
    type: 'server_error',
    code: null,
  },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', code: null },
};

/** An injected error answer (429 with Retry-After, 500, …) in OpenAI's body shape unless `body` is given. */
export function injectedError(spec: FakeError['error']): ErrorAnswer {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (spec.retryAfter !== undefined) headers['retry-after'] = String(spec.retryAfter);
  Object.assign(headers, spec.headers);
  if (spec.body !== undefined) return { status: spec.status, headers, body: spec.body };
  const d = DEFAULT_MESSAGES[spec.status] ?? {
    message: `Error ${spec.status}`,
    type: spec.status >= 500 ? 'server_error' : 'invalid_request_error',
    code: null,
  };
  return {
    status: spec.status,
    headers,
    body: {
      error: {
        message: spec.message ?? d.message,
        type: spec.type ?? d.type,
        param: null,
        code: spec.code === undefined ? d.code : spec.code,
      },
    },
  };
}
