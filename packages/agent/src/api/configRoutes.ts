import type { AppApi } from '@threadline/protocol';
import { requireSession, type ApiContext } from './apiContext';
import { notFound } from './errors';

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
>;

/** Memory, settings and provider profiles: thin over the store, plus the provider's connection test. */
export function configRoutes(ctx: ApiContext): ConfigRoutes {
  const { store } = ctx.deps;
  return {
    'memory.facts.list': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return store.memory.facts(sessionId);
    },
    'memory.facts.upsert': async ({ sessionId, id, category, content, pinned }) => {
      requireSession(ctx, sessionId);
      return store.memory.upsertFact(sessionId, { id, category, content, pinned });
    },
    'memory.facts.setStatus': async ({ id, status, pinned }) => store.memory.setStatus(id, status, pinned),
    'memory.candidates.list': async ({ sessionId }) => {
      requireSession(ctx, sessionId);
      return store.memory.candidates(sessionId);
    },
    'settings.get': async () => store.settings.get(),
    'settings.set': async ({ patch }) => store.settings.set(patch),
    'providers.list': async () => store.providers.list(),
    'providers.upsert': async (input) => store.providers.upsert(input),
    'providers.setActive': async ({ id }) => store.providers.setActive(id),
    'providers.test': async ({ id }) => {
      const profile = store.providers.get(id);
      if (!profile) throw notFound('provider profile', id);
      try {
        return await ctx.providerFactory(profile, store.providers.secret(id)).testConnection();
      } catch (err) {
        return { ok: false, message: err instanceof Error ? err.message : String(err), latencyMs: null };
      }
    },
  };
}
