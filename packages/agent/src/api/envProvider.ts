import { distinctProfileName, PROVIDER_PRESETS, type PresetId, type ProviderProfile } from '@threadline/protocol';
import { StoreError, type Store } from '@threadline/store';

export type Env = Record<string, string | undefined>;

function presetFor(url: string): PresetId {
  for (const [id, p] of Object.entries(PROVIDER_PRESETS))
    if (url.replace(/\/+$/, '') === p.baseUrl) return id as PresetId;
  return 'custom';
}

/** THREADLINE_CONTEXT_WINDOW: a positive whole number of tokens, or null when unset. */
function contextWindowFrom(env: Env): number | null {
  const raw = env.THREADLINE_CONTEXT_WINDOW?.trim();
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  // Refused like the settings overrides: a typo silently replaced by the default would make the
  // meter and auto compaction work against a window nobody chose.
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n <= 0) {
    throw new StoreError(
      'invalid_env',
      `Invalid value ${JSON.stringify(raw)} for THREADLINE_CONTEXT_WINDOW; accepted: a positive whole number of tokens (e.g. 128000).`,
    );
  }
  return n;
}

/** The stored key, or undefined when it cannot be read (a locked keychain). */
function storedKey(store: Store, id: string): string | null | undefined {
  try {
    return store.providers.secret(id);
  } catch {
    return undefined;
  }
}

/**
 * Headless use: THREADLINE_PROVIDER_URL, THREADLINE_MODEL, THREADLINE_CONTEXT_WINDOW
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
  const envWindow = contextWindowFrom(env);
  const existing = store.providers.list().find((p) => p.baseUrl.replace(/\/+$/, '') === baseUrl && p.model === model);
  if (existing) {
    // Keep the user's edits; only a changed window or key from the environment is applied (a
    // rotated OPENAI_API_KEY replaces the stored one).
    // An unreadable stored key (locked keychain) is left alone: it could not be replaced either,
    // and trying would lose the window change with it.
    const stored = existing.hasKey ? storedKey(store, existing.id) : null;
    const keyChanged = key !== null && stored !== undefined && stored !== key;
    // Without the variable the user's window stays (the preset's default is no instruction).
    const contextWindow = envWindow ?? existing.contextWindow;
    if (existing.contextWindow !== contextWindow || keyChanged) {
      return store.providers.upsert({
        id: existing.id,
        preset: existing.preset,
        name: existing.name,
        baseUrl: existing.baseUrl,
        model,
        contextWindow,
        compactionModel: existing.compactionModel,
        apiKey: keyChanged ? key : undefined,
      });
    }
    return existing;
  }
  const created = store.providers.upsert({
    preset,
    name: distinctProfileName(
      `${defaults.name} (environment)`,
      store.providers.list().map((p) => p.name),
    ),
    baseUrl,
    model,
    contextWindow: envWindow ?? defaults.contextWindow,
    compactionModel: null,
    apiKey: key,
  });
  return store.providers.setActive(created.id);
}
