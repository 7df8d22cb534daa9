import { errorMessage, AppError, type AppApi } from '@threadline/protocol';
import { addAttachment } from '../attachments';
import { emitUsage } from '../turn/usage';
import { buildSessionView } from '../turn/view';
import { emitSession, requireSession, sessionWork, type ApiContext } from './apiContext';
import { notFound } from './errors';

type ModelRoutes = Pick<
  AppApi,
  | 'providers.models'
  | 'providers.delete'
  | 'sessions.setModel'
  | 'attachments.add'
  | 'attachments.get'
  | 'attachments.discard'
>;

/** The meter follows a session's new model (and window) at once, not at its next work. */
function emitUsageNow(ctx: ApiContext, sessionId: string): void {
  const work = sessionWork(ctx, sessionId, new AbortController().signal);
  emitUsage(work, buildSessionView(work));
}

/** How long a provider's model list is kept before it is asked again (refresh: at once). */
const MODELS_TTL_MS = 10 * 60_000;

/** A model per session (the header's switcher), the providers' model lists, profile deletion, attachments. */
export function modelRoutes(ctx: ApiContext): ModelRoutes {
  const { store } = ctx.deps;
  // Per profile, for the address and key it was asked with: an edit of either asks again.
  const models = new Map<string, { key: string; at: number; models: string[] }>();

  return {
    'providers.models': async ({ id, refresh }) => {
      const profile = store.providers.get(id);
      if (!profile) throw notFound('provider profile', id);
      const key = `${profile.baseUrl}\u0000${profile.hasKey ? store.providers.keyStorage(id) : 'none'}`;
      const hit = models.get(id);
      if (!refresh && hit && hit.key === key && ctx.deps.now() - hit.at < MODELS_TTL_MS)
        return { models: hit.models, error: null };
      try {
        const list = await ctx.providerFactory(profile, store.providers.secret(id)).listModels();
        models.set(id, { key, at: ctx.deps.now(), models: list });
        return { models: list, error: null };
      } catch (err) {
        return { models: [], error: errorMessage(err) };
      }
    },

    'providers.delete': async ({ id }) => {
      if (!store.providers.get(id)) throw notFound('provider profile', id);
      const using = store.sessions.list().filter((s) => s.profileId === id);
      const sessions = store.providers.delete(id);
      models.delete(id);
      // Its own prices went with it: the sessions that used it are priced again.
      ctx.sessions.pricesChanged();
      for (const s of using) {
        emitSession(ctx, s.id);
        emitUsageNow(ctx, s.id);
      }
      return { deleted: true, sessions };
    },

    'sessions.setModel': async ({ id, profileId, model }) => {
      requireSession(ctx, id);
      if (profileId !== null && !store.providers.get(profileId)) throw notFound('provider profile', profileId);
      if (profileId === null && model !== null)
        throw new AppError('invalid_input', 'A model is chosen together with its provider profile.');
      const profile = profileId ? store.providers.get(profileId) : null;
      // The profile's own model is stored as "none": a later edit of the profile's model applies.
      const session = store.sessions.setModel(id, profileId, model === profile?.model ? null : model);
      emitSession(ctx, id);
      emitUsageNow(ctx, id);
      return session;
    },

    'attachments.add': async (input) => addAttachment(store, input),

    'attachments.discard': async ({ id }) => ({ deleted: store.attachments.discard(id) }),

    'attachments.get': async ({ id, thumb, offset, limit }) => {
      const ref = store.attachments.get(id);
      if (!ref) throw notFound('attachment', id);
      if (ref.kind === 'image' && thumb) {
        const small = store.attachments.thumb(id);
        return {
          ref,
          dataUrl: small ? `data:${small.mime};base64,${small.bytes.toString('base64')}` : null,
          text: null,
        };
      }
      if (ref.kind === 'image') {
        const bytes = store.attachments.bytes(id);
        return { ref, dataUrl: bytes ? `data:${ref.mime};base64,${bytes.toString('base64')}` : null, text: null };
      }
      const text = store.attachments.text(id) ?? '';
      const start = Math.min(offset ?? 0, text.length);
      return { ref, dataUrl: null, text: text.slice(start, start + (limit ?? 200_000)) };
    },
  };
}
