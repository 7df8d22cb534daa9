import {
  AppError,
  distinctProfileName,
  errorMessage,
  PROVIDER_PRESETS,
  type AppApi,
  type ProviderProfile,
  type ProviderUpsert,
} from '@threadline/protocol';
import { requireSession, type ApiContext } from './apiContext';
import { notFound } from './errors';
import { checkWorkingFolder } from '../workspace/reach';
import { reachBase } from '../workspace/sessionFolder';
import { readServerWindow, withRequestedWindow } from '../provider/serverWindow';

type ConfigRoutes = Pick<
  AppApi,
  | 'memory.facts.list'
  | 'memory.facts.upsert'
  | 'memory.facts.setStatus'
  | 'memory.candidates.list'
  | 'settings.get'
  | 'settings.set'
  | 'providers.list'
  | 'providers.upsert'
  | 'providers.setActive'
  | 'providers.test'
  | 'providers.readWindow'
>;

function origin(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** Memory, settings and provider profiles: thin over the store, plus the provider's connection test. */
export function configRoutes(ctx: ApiContext): ConfigRoutes {
  const { store } = ctx.deps;
  const storedProfile = (id: string): { profile: ProviderProfile; secret: string | null } => {
    const profile = store.providers.get(id);
    if (!profile) throw notFound('provider profile', id);
    return { profile, secret: store.providers.secret(id) };
  };
  /**
   * What the local server says about the window it runs the profile's model with, stored with the
   * profile; when the profile's window is larger than Ollama's num_ctx, Ollama is asked to run the
   * model with it (serverWindow.ts). A server that says nothing keeps what was read before for
   * the same model, and forgets it for another.
   */
  const readWindow = async (id: string): Promise<ProviderProfile> => {
    const { profile, secret } = storedProfile(id);
    const read = await readServerWindow(profile, secret, { now: ctx.deps.now });
    const sw = read
      ? await withRequestedWindow(profile, read, profile.contextWindow, secret, { now: ctx.deps.now })
      : null;
    const kept = sw ?? (profile.serverWindow?.model === profile.model ? profile.serverWindow : null);
    return store.providers.setServerWindow(id, kept ?? null);
  };
  // Testing what the form holds must not save it: a failed first-run test would otherwise leave
  // a broken profile behind, and a test in Settings would apply edits nobody confirmed.
  const draftProfile = (d: ProviderUpsert): { profile: ProviderProfile; secret: string | null } => {
    const stored = d.id ? storedProfile(d.id) : null;
    // The stored key goes only to the host it was saved for: a test of an edited address must
    // not hand it to a server the user merely typed.
    const sameHost = stored !== null && origin(stored.profile.baseUrl) === origin(d.baseUrl);
    const secret = d.apiKey !== undefined ? d.apiKey : sameHost ? (stored?.secret ?? null) : null;
    const profile: ProviderProfile = {
      id: d.id ?? 'draft',
      preset: d.preset,
      name: d.name,
      baseUrl: d.baseUrl,
      model: d.model,
      contextWindow: d.contextWindow,
      compactionModel: d.compactionModel ?? null,
      hasKey: secret !== null && secret !== '',
      active: false,
    };
    return { profile, secret };
  };
  return {
    'memory.facts.list': async ({ sessionId, allBranches }) => {
      requireSession(ctx, sessionId);
      return store.memory.facts(sessionId, { allBranches });
    },
    'memory.facts.upsert': async ({ sessionId, id, category, content, pinned }) => {
      requireSession(ctx, sessionId);
      return ctx.deps.sessions.upsertFact(sessionId, { id, category, content, pinned });
    },
    'memory.facts.setStatus': async ({ id, status, pinned }) => ctx.deps.sessions.setFactStatus(id, status, pinned),
    'memory.candidates.list': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return store.memory.candidates(sessionId);
    },
    'settings.get': async () => store.settings.get(),
    'settings.set': async ({ patch }) => {
      // The default folder is checked as a session's is (not the home folder, not the data folder…).
      const folder = patch.agent?.defaultWorkingFolder;
      if (folder) checkWorkingFolder(folder, reachBase(ctx.deps.workspace));
      return store.settings.set(patch);
    },
    'providers.list': async () => store.providers.list(),
    'providers.upsert': async (input) => {
      // Names tell profiles apart in the model menu and Settings: one name, one profile.
      const taken = store.providers
        .list()
        .filter((p) => p.id !== input.id)
        .map((p) => p.name);
      if (distinctProfileName(input.name, taken) !== input.name)
        throw new AppError('invalid_input', `Another provider profile is called "${input.name}".`, 'duplicate', {
          issues: [{ path: ['name'], code: 'duplicate', message: 'A profile with this name exists.' }],
        });
      // Saved, then the local server's window read for its model (a save of a hosted profile reads nothing).
      return readWindow(store.providers.upsert(input).id);
    },
    'providers.setActive': async ({ id }) => store.providers.setActive(id),
    'providers.readWindow': async ({ id }) => readWindow(storedProfile(id).profile.id),
    'providers.test': async (input) => {
      const { profile, secret } = 'draft' in input ? draftProfile(input.draft) : storedProfile(input.id);
      // Without the key a hosted provider needs, no request can tell more than this.
      if (PROVIDER_PRESETS[profile.preset].needsKey && !secret)
        return {
          ok: false,
          message: `${PROVIDER_PRESETS[profile.preset].name} needs an API key.`,
          latencyMs: null,
          problem: 'missing_key',
        };
      try {
        return await ctx.providerFactory(profile, secret).testConnection();
      } catch (err) {
        return {
          ok: false,
          message: errorMessage(err),
          latencyMs: null,
          problem: 'other',
        };
      }
    },
  };
}
