import * as z from 'zod';

export const PROVIDER_PRESETS = {
  openai: {
    name: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-5.1',
    contextWindow: 400_000,
    needsKey: true,
  },
  anthropic: {
    name: 'Anthropic',
    // Anthropic's OpenAI-compatible endpoint (chat completions with the openai SDK).
    baseUrl: 'https://api.anthropic.com/v1',
    model: 'claude-sonnet-4-5',
    contextWindow: 200_000,
    needsKey: true,
  },
  gemini: {
    name: 'Google Gemini',
    // Gemini's OpenAI-compatible endpoint.
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    model: 'gemini-2.5-flash',
    contextWindow: 1_048_576,
    needsKey: true,
  },
  openrouter: {
    name: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    model: 'openai/gpt-5.1',
    contextWindow: 400_000,
    needsKey: true,
  },
  deepseek: {
    name: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/v1',
    model: 'deepseek-chat',
    contextWindow: 128_000,
    needsKey: true,
  },
  ollama: {
    name: 'Ollama',
    baseUrl: 'http://127.0.0.1:11434/v1',
    model: 'llama3.1',
    contextWindow: 8_192,
    needsKey: false,
  },
  lmstudio: {
    name: 'LM Studio',
    baseUrl: 'http://127.0.0.1:1234/v1',
    model: 'local-model',
    contextWindow: 8_192,
    needsKey: false,
  },
  custom: {
    name: 'Custom',
    baseUrl: 'http://127.0.0.1:8000/v1',
    model: 'model',
    contextWindow: 32_768,
    needsKey: false,
  },
} as const;
/** The most models a connection test hands the form (a provider may list thousands). */
export const MODELS_LISTED_MAX = 500;

/**
 * A profile's name that no other profile has (compared without case): `base`, else `base 2`,
 * `base 3`… Two profiles called "Custom" cannot be told apart in the model menu.
 */
export function distinctProfileName(base: string, taken: readonly string[]): string {
  const used = new Set(taken.map((n) => n.trim().toLowerCase()));
  if (!used.has(base.trim().toLowerCase())) return base;
  for (let n = 2; ; n++) if (!used.has(`${base} ${n}`.toLowerCase())) return `${base} ${n}`;
}

export const PresetIdSchema = z.enum([
  'openai',
  'anthropic',
  'gemini',
  'openrouter',
  'deepseek',
  'ollama',
  'lmstudio',
  'custom',
]);
export type PresetId = z.infer<typeof PresetIdSchema>;

/**
 * The window a local server runs the profile's model with, as the server said it (read when the
 * profile is saved or its model changes, `providers.readWindow`): Ollama's num_ctx (`/api/show`
 * parameters, or `/api/ps` once loaded, else its documented default), LM Studio's loaded context
 * length, llama.cpp's `n_ctx` (`/props`), vLLM's `max_model_len` (`/v1/models`).
 */
export const ServerWindowSchema = z.object({
  source: z.enum(['ollama', 'lmstudio', 'llamacpp', 'vllm']),
  /** The model these figures are of (the profile's at the time). */
  model: z.string(),
  /** The most a request can hold before the server cuts or refuses it; null: not said (not loaded). */
  window: z.number().int().positive().nullable(),
  /** The most the model itself takes (Ollama's `context_length`, LM Studio's `max_context_length`); null: not said. */
  modelMax: z.number().int().positive().nullable(),
  /**
   * Where `window` was read: `num_ctx`, `context_length_loaded` (Ollama's /api/ps), `default`
   * (Ollama's own default: nothing said otherwise), `loaded_context_length`, `n_ctx`, `max_model_len`.
   */
  field: z.string(),
  /** The Ollama model Threadline made from it to run with the user's larger window (`model-ctxN`). */
  alias: z.string().nullable(),
  checkedAt: z.number().int(),
});
export type ServerWindow = z.infer<typeof ServerWindowSchema>;

/** What the renderer ever learns of a profile: never the key, only whether one is set. */
export const ProviderProfileSchema = z.object({
  id: z.string(),
  preset: PresetIdSchema,
  name: z.string().min(1).max(100),
  baseUrl: z.url(),
  model: z.string().min(1).max(200),
  contextWindow: z.number().int().positive(),
  /**
   * The smaller window the provider stated in a context-limit error ("maximum context length is
   * 16000 tokens"); the runtime works with it until the user undoes it. null/absent: none.
   */
  learnedContextWindow: z.number().int().positive().nullable().optional(),
  /** What the local server said about its window (ServerWindowSchema); null/absent: not a local server, or not read. */
  serverWindow: ServerWindowSchema.nullable().optional(),
  compactionModel: z.string().max(200).nullable(),
  hasKey: z.boolean(),
  active: z.boolean(),
});
export type ProviderProfile = z.infer<typeof ProviderProfileSchema>;

export const ProviderUpsertSchema = z.object({
  id: z.string().optional(),
  preset: PresetIdSchema,
  name: z.string().trim().min(1).max(100),
  baseUrl: z.url({ protocol: /^https?$/ }),
  model: z.string().trim().min(1).max(200),
  contextWindow: z.number().int().positive().max(100_000_000),
  /** undefined: keep the learned window; null: forget it (undo); a number: set it. */
  learnedContextWindow: z.number().int().positive().max(100_000_000).nullable().optional(),
  compactionModel: z.string().trim().max(200).nullable().optional(),
  /** undefined: keep the stored key; null: remove it; a string: replace it. */
  apiKey: z.string().max(4096).nullable().optional(),
});
export type ProviderUpsert = z.infer<typeof ProviderUpsertSchema>;
