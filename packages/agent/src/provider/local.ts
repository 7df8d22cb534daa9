import type { ProviderProfile } from '@threadline/protocol';

/** Loopback names and addresses: a server on this machine. */
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[?::1\]?|0\.0\.0\.0)$/i;

/**
 * A model served on this machine (Ollama, LM Studio, a local vLLM or llama.cpp): its preset, or
 * a base URL on a loopback address. Such a server answers one request at a time well, so helpers
 * run one after the other by default.
 */
export function isLocalProvider(profile: Pick<ProviderProfile, 'preset' | 'baseUrl'>): boolean {
  if (profile.preset === 'ollama' || profile.preset === 'lmstudio') return true;
  try {
    return LOOPBACK.test(new URL(profile.baseUrl).hostname);
  } catch {
    return false;
  }
}
