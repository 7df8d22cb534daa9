import {
  AppError,
  DEFAULT_SETTINGS,
  type ProviderProfile,
  type SessionSummary,
  type Settings,
} from '@threadline/protocol';
import type { TurnRows } from '@threadline/store';
import { createProviderClient, type ProviderClient } from '../provider/client';
import type { TurnDeps } from '../turn/deps';
import { profileForModel } from '../turn/budget';
import { emitSession as emitSessionOf } from '../turn/turn';
import { SessionWork } from '../turn/sessionWork';
import type { Sessions } from '../session/session';

/** Builds the client of a profile (tests pass their own options, e.g. no retry sleeps). */
export type ProviderFactory = (profile: ProviderProfile, apiKey: string | null) => ProviderClient;

/** The default client of a profile: the openai-SDK client with retries and typed errors. */
export const defaultProviderFactory: ProviderFactory = (profile, apiKey) => createProviderClient(profile, apiKey);

export interface ApiContext {
  deps: TurnDeps;
  sessions: Sessions;
  providerFactory: ProviderFactory;
}

/** Used for token accounting when no provider is configured yet (the meter still works). */
export const FALLBACK_PROFILE: ProviderProfile = {
  id: 'none',
  preset: 'custom',
  name: 'No provider',
  baseUrl: 'http://127.0.0.1:8000/v1',
  model: 'gpt-4o',
  contextWindow: 128_000,
  compactionModel: null,
  hasKey: false,
  active: false,
};

/** The session's row, or not_found. */
export function requireSession(ctx: ApiContext, sessionId: string): SessionSummary {
  const session = ctx.deps.store.sessions.get(sessionId);
  if (!session) throw new AppError('not_found', `No session with id ${sessionId}.`);
  return session;
}

/**
 * The profile a session's requests go to: its own (sessions.setModel) while that profile exists,
 * else the active one (as turns.load resolved it); with the session's model when it chose one.
 * The window follows the model: the profile's for its own model, the model table's for another
 * (the profile's when the table does not know it). null when no profile is configured.
 */
export function sessionProfile(rows: Pick<TurnRows, 'session' | 'profile' | 'ownProfile'>): ProviderProfile | null {
  const { profile } = rows;
  if (!profile) return null;
  const model = rows.ownProfile ? rows.session.model : null;
  return model ? profileForModel(profile, model) : profile;
}

/**
 * What a turn (or a piece of work on a session) reads once, in one read (store.turns.load), or
 * not_found; with `secret` the profile's API key too.
 */
export function loadTurnRows(ctx: ApiContext, sessionId: string, opts: { secret: boolean }): TurnRows {
  const rows = ctx.deps.store.turns.load(sessionId, opts);
  if (!rows) throw new AppError('not_found', `No session with id ${sessionId}.`);
  return rows;
}

export function currentSettings(ctx: ApiContext): Settings {
  try {
    return ctx.deps.store.settings.get();
  } catch {
    return DEFAULT_SETTINGS;
  }
}

/**
 * Work on a session outside a chat turn (manual compaction, preview, the meter, instructions.get,
 * a model switch): the Session with the row, settings and profile read now, and its own abort
 * signal (turn/sessionWork.ts). The client is built on its first call only, so the meter and the
 * preview never decrypt the API key (a locked keychain must not break them) and work with no provider.
 */
export function sessionWork(ctx: ApiContext, sessionId: string, signal: AbortSignal): SessionWork {
  const rows = loadTurnRows(ctx, sessionId, { secret: false });
  const profile = sessionProfile(rows) ?? FALLBACK_PROFILE;
  const client = profile === FALLBACK_PROFILE ? unavailableClient() : lazyClient(ctx, profile);
  return new SessionWork({
    deps: ctx.deps,
    rows,
    settings: rows.settings ?? DEFAULT_SETTINGS,
    profile,
    client,
    signal,
  });
}

function lazyClient(ctx: ApiContext, profile: ProviderProfile): ProviderClient {
  let built: ProviderClient | null = null;
  const get = (): ProviderClient =>
    (built ??= ctx.providerFactory(profile, ctx.deps.store.providers.secret(profile.id)));
  return {
    streamChat: async (req) => get().streamChat(req),
    complete: async (req) => get().complete(req),
    testConnection: async () => get().testConnection(),
    listModels: async () => get().listModels(),
  };
}

function unavailableClient(): ProviderClient {
  const fail = (): never => {
    throw new AppError('conflict', 'No provider is configured. Add one in Settings → Providers.');
  };
  return {
    streamChat: async () => fail(),
    complete: async () => fail(),
    testConnection: async () => fail(),
    listModels: async () => fail(),
  };
}

/** session.updated for a route's change of the session (turn/turn.ts emitSession is the one sender). */
export function emitSession(ctx: ApiContext, sessionId: string): void {
  emitSessionOf(ctx.deps, sessionId, currentSettings(ctx));
}
