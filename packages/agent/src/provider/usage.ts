import type { CallUsage } from './types';

/**
 * The usage object of an answer, in the dialects of the compatible APIs: OpenAI and OpenRouter
 * report cached prompt tokens in `prompt_tokens_details.cached_tokens`, DeepSeek in
 * `prompt_cache_hit_tokens`. Null when there is no usage.
 */
export function readUsage(raw: unknown): CallUsage | null {
  if (!raw || typeof raw !== 'object') return null;
  const u = raw as Record<string, unknown>;
  const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  if (typeof u['prompt_tokens'] !== 'number') return null;
  const details = u['prompt_tokens_details'];
  const openAiCached =
    details && typeof details === 'object' ? num((details as Record<string, unknown>)['cached_tokens']) : 0;
  const promptTokens = num(u['prompt_tokens']);
  const cachedTokens = Math.min(promptTokens, openAiCached || num(u['prompt_cache_hit_tokens']));
  return { promptTokens, completionTokens: num(u['completion_tokens']), cachedTokens };
}
