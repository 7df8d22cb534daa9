import { PROVIDER_PRESETS, type PresetId, type ProviderProfile } from '@threadline/protocol';
import type { Store } from '@threadline/store';

export type Env = Record<string, string | undefined>;

function presetFor(url: string): PresetId {
  for (const [id, p] of Object.entries(PROVIDER_PRESETS)) if (url.replace(/\/+$/, '') === p.baseUrl) return id as PresetId;
  return 'custom';
}

/**
 * Headless use (SPEC §7.1): THREADLINE_PROVIDER_URL, THREADLINE_MODEL, THREADLINE_CONTEXT_WINDOW
 * and OPENAI_API_KEY preconfigure a profile. It is created once (found again by base URL + model)
 * and made active when created; later starts leave the user's choices alone.
 */
export function ensureEnvProvider(store: Store, env: Env): ProviderProfile | null {
  const url = env.THREADLINE_PROVIDER_URL?.trim();
  const key = env.OPENAI_API_KEY?.trim() || null;
  if (!url && !key) return null;
  const preset: PresetId = url ? presetFor(url) : 'openai';
  const defaults = PROVIDER_PRESETS[preset];
  const baseUrl = (url || defaults.baseUrl).replace(/\/+$/, '');
  const model = env.THREADLINE_MODEL?.trim() || defaults.model;
  const rawWindow = Number(env.THREADLINE_CONTEXT_WINDOW);
  const contextWindow = Number.isInteger(rawWindow) && rawWindow > 0 ? rawWindow : defaults.contextWindow;
  const existing = store.providers.list().find((p) => p.baseUrl.replace(/\/+$/, '') === baseUrl && p.model === model);
  if (existing) {
    // Keep the user's edits; only a changed window or key from the environment is applied.
    if (existing.contextWindow !== contextWindow || (key !== null && !existing.hasKey)) {
      return store.providers.upsert({
        id: existing.id,
        preset: existing.preset,
        name: existing.name,
        baseUrl: existing.baseUrl,
        model,
        contextWindow,
        compactionModel: existing.compactionModel,
        apiKey: key ?? undefined,
      });
    }
    return existing;
  }
  const created = store.providers.upsert({
    preset,
    name: `${defaults.name} (environment)`,
    baseUrl,
    model,
    contextWindow,
    compactionModel: null,
    apiKey: key,
  });
  return store.providers.setActive(created.id);
}
