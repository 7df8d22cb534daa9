import { describe, expect, it } from 'vitest';
import { isContextLimitError, statedContextLimit } from '../..';

/** Issue 22 point 5: the window a provider's context-limit error states, in each provider's words. */
describe('statedContextLimit', () => {
  it.each([
    [
      'OpenAI',
      {
        error: {
          message:
            "This model's maximum context length is 16000 tokens. However, your messages resulted in 33012 tokens. Please reduce the length of the messages.",
          code: 'context_length_exceeded',
        },
      },
      { limit: 16000, requested: 33012 },
    ],
    [
      'OpenAI (requested)',
      "This model's maximum context length is 8192 tokens. However, you requested 9500 tokens (9000 in the messages, 500 in the completion).",
      { limit: 8192, requested: 9500 },
    ],
    [
      'Anthropic',
      {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'prompt is too long: 215000 tokens > 200000 maximum' },
      },
      { limit: 200000, requested: 215000 },
    ],
    [
      'Anthropic (max_tokens)',
      'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again',
      { limit: 200000, requested: 206192 },
    ],
    [
      'Gemini',
      {
        error: {
          code: 400,
          message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
          status: 'INVALID_ARGUMENT',
        },
      },
      { limit: 1048576, requested: 1200000 },
    ],
    [
      'vLLM',
      'The decoder prompt (length 9000) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens.',
      { limit: 8192, requested: 9000 },
    ],
    [
      'vLLM (old)',
      'Input prompt (9000 tokens) is too long and exceeds limit of 8192',
      { limit: 8192, requested: 9000 },
    ],
    [
      'llama.cpp',
      'the request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it',
      { limit: 8192, requested: 9000 },
    ],
    [
      'LM Studio',
      'Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.',
      { limit: 4096, requested: null },
    ],
    [
      'Mistral',
      'Prompt contains 40000 tokens, too large for model with 32768 maximum context length',
      { limit: 32768, requested: null },
    ],
  ])('%s', (_name, err, expected) => {
    expect(isContextLimitError(err)).toBe(true);
    expect(statedContextLimit(err)).toEqual(expected);
  });

  it('an error that states no limit gives none', () => {
    expect(statedContextLimit('prompt too long; exceeded max context length by 12 tokens')).toBeNull();
    expect(
      statedContextLimit({ error: { code: 'context_length_exceeded', message: 'Context length exceeded' } }),
    ).toBeNull();
  });
});
