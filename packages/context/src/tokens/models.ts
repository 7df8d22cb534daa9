/**
 * Model → encoding and model → context window. Names are matched after stripping a provider
 * prefix (`openai/gpt-4o` on OpenRouter, `deepseek/deepseek-chat`) and by longest prefix, so dated
 * snapshots (`gpt-4o-2024-08-06`) and local tags (`llama3.1:8b`) resolve to their family.
 */

export type EncodingName = 'o200k_base' | 'cl100k_base' | 'approx_chars_4';

/** Longest matching prefix wins. */
const ENCODING_PREFIXES: Array<[string, EncodingName]> = [
  ['gpt-4o', 'o200k_base'],
  ['gpt-4.1', 'o200k_base'],
  ['gpt-4.5', 'o200k_base'],
  ['gpt-5', 'o200k_base'],
  ['chatgpt-4o', 'o200k_base'],
  ['o1', 'o200k_base'],
  ['o3', 'o200k_base'],
  ['o4', 'o200k_base'],
  ['gpt-oss', 'o200k_base'],
  ['gpt-4', 'cl100k_base'],
  ['gpt-3.5', 'cl100k_base'],
  ['text-embedding-3', 'cl100k_base'],
  ['text-embedding-ada', 'cl100k_base'],
];

/**
 * Context windows in tokens (prompt + completion), from the providers' model pages. Unknown
 * models get DEFAULT_CONTEXT_WINDOW; a provider profile overrides any of these.
 */
export const MODEL_CONTEXT_WINDOWS: Readonly<Record<string, number>> = Object.freeze({
  // OpenAI
  'gpt-5': 400_000,
  'gpt-5-chat': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-4.5': 128_000,
  'gpt-4o': 128_000,
  'chatgpt-4o': 128_000,
  'gpt-4-turbo': 128_000,
  'gpt-4-1106': 128_000,
  'gpt-4-0125': 128_000,
  'gpt-4-32k': 32_768,
  'gpt-4': 8_192,
  'gpt-3.5-turbo': 16_385,
  'gpt-oss': 131_072,
  o1: 200_000,
  'o1-mini': 128_000,
  o3: 200_000,
  'o3-mini': 200_000,
  o4: 200_000,
  // DeepSeek (V3.x chat and reasoner)
  'deepseek-chat': 128_000,
  'deepseek-reasoner': 128_000,
  'deepseek-coder': 128_000,
  // Anthropic (its OpenAI-compatible endpoint; the 1M window is a beta behind a header)
  claude: 200_000,
  // Google Gemini (its OpenAI-compatible endpoint)
  'gemini-1.5-pro': 2_097_152,
  'gemini-1.5-flash': 1_048_576,
  'gemini-2': 1_048_576,
  'gemini-3': 1_048_576,
  gemini: 1_048_576,
  // Open models (local servers may run them with a smaller window: set it in the profile)
  'llama3.1': 131_072,
  'llama3.2': 131_072,
  'llama3.3': 131_072,
  llama3: 8_192,
  llama4: 131_072,
  'qwen2.5': 32_768,
  qwen3: 40_960,
  'qwen3-coder': 262_144,
  mistral: 32_768,
  'mistral-large': 131_072,
  'mistral-medium': 131_072,
  devstral: 131_072,
  mixtral: 32_768,
  phi4: 16_384,
  gemma3: 131_072,
  'kimi-k2': 262_144,
  'glm-4.5': 131_072,
  'glm-4.6': 200_000,
});

/** Conservative on purpose: an unknown local model is more often small than large. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/** `openai/gpt-4o` → `gpt-4o`; `models/gemini-2.0-flash` → `gemini-2.0-flash`; lower-cased. */
export function baseModelName(model: string): string {
  const m = model.trim().toLowerCase();
  const slash = m.lastIndexOf('/');
  return slash >= 0 ? m.slice(slash + 1) : m;
}

function longestPrefix<T>(name: string, entries: Iterable<[string, T]>): T | undefined {
  let best: [string, T] | undefined;
  for (const e of entries) {
    if (name.startsWith(e[0]) && (!best || e[0].length > best[0].length)) best = e;
  }
  return best?.[1];
}

/**
 * The tokenizer of a model. Unknown models (Llama, Qwen, Claude, Gemini…) use the documented
 * fallback `approx_chars_4`: ceil(chars / 4), the usual rule of thumb for English and code. It
 * over-counts CJK text less than it under-counts it would with a BPE of the wrong family.
 */
export function encodingForModel(model: string): EncodingName {
  return longestPrefix(baseModelName(model), ENCODING_PREFIXES) ?? 'approx_chars_4';
}

/** The context window for a model; `overrides` (a provider profile's table) win over ours. */
export function contextWindowFor(model: string, overrides?: Readonly<Record<string, number>>): number {
  const name = baseModelName(model);
  if (overrides) {
    const exact = overrides[model] ?? overrides[name];
    if (exact !== undefined && exact > 0) return exact;
    const pre = longestPrefix(
      name,
      Object.entries(overrides).map(([k, v]) => [k.toLowerCase(), v] as [string, number]),
    );
    if (pre !== undefined && pre > 0) return pre;
  }
  return longestPrefix(name, Object.entries(MODEL_CONTEXT_WINDOWS)) ?? DEFAULT_CONTEXT_WINDOW;
}
