import { describe, expect, it } from 'vitest';
import { readUsage } from '../usage';

describe('readUsage', () => {
  it('reads OpenAI / OpenRouter cached tokens', () => {
    expect(
      readUsage({ prompt_tokens: 1200, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 1024 } }),
    ).toEqual({ promptTokens: 1200, completionTokens: 30, cachedTokens: 1024 });
  });
  it('reads DeepSeek’s prompt_cache_hit_tokens', () => {
    expect(
      readUsage({
        prompt_tokens: 900,
        completion_tokens: 5,
        prompt_cache_hit_tokens: 640,
        prompt_cache_miss_tokens: 260,
      }),
    ).toEqual({ promptTokens: 900, completionTokens: 5, cachedTokens: 640 });
  });
  it('counts no cache when none is reported, never more than the prompt, and nothing without usage', () => {
    expect(readUsage({ prompt_tokens: 10, completion_tokens: 2 })).toEqual({
      promptTokens: 10,
      completionTokens: 2,
      cachedTokens: 0,
    });
    expect(readUsage({ prompt_tokens: 10, completion_tokens: 2, prompt_cache_hit_tokens: 50 })?.cachedTokens).toBe(10);
    expect(readUsage(null)).toBeNull();
    expect(readUsage({ completion_tokens: 2 })).toBeNull();
  });
});
