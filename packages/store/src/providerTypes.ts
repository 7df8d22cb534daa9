// The provider profiles part of @threadline/store's surface;
// types.ts re-exports it with the rest.
import type { ProviderProfile, ServerWindow, ProviderUpsert } from '@threadline/protocol';

export type KeyStorage = 'encrypted' | 'plaintext' | 'none';

export interface ProvidersRepo {
  /** hasKey only, never the key. Oldest first. */
  list(): ProviderProfile[];
  get(id: string): ProviderProfile | null;
  /**
   * Creates (new id) or updates; apiKey undefined keeps (unless the base URL moves to another
   * origin: then the key is dropped), null removes, string replaces. The first profile becomes active.
   */
  upsert(p: ProviderUpsert): ProviderProfile;
  /**
   * Makes `id` the profile new sessions use. Sessions with messages that followed the previous
   * active profile are given it as their own, so their model does not change under them.
   */
  setActive(id: string): ProviderProfile;
  /**
   * The window the provider stated in a context-limit error (null: forget it). Kept only when
   * smaller than the profile's contextWindow.
   */
  setLearnedWindow(id: string, window: number | null): ProviderProfile;
  /** What the local server said about the window it runs the model with (null: forget it). */
  setServerWindow(id: string, window: ServerWindow | null): ProviderProfile;
  active(): ProviderProfile | null;
  /** The decrypted API key, for the runtime only. */
  secret(id: string): string | null;
  /** How the key of a profile is stored (the UI may warn about 'plaintext'). */
  keyStorage(id: string): KeyStorage;
  /** Deletes the profile and its key; sessions that used it go back to the active one. Returns how many. */
  delete(id: string): number;
}
