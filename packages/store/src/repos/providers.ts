// Provider profiles. The API key never leaves this module except through secret(); at rest it is
// the injected encryptor's output, or plain text only when the caller allowed it (marked per row).
import {
  ProviderUpsertSchema,
  ServerWindowSchema,
  type ProviderProfile,
  type ProviderUpsert,
  type ServerWindow,
} from '@threadline/protocol';
import { createSealer, type KeyPolicy } from '../secrets/sealer';
import { StoreError, type KeyStorage, type ProvidersRepo } from '../types';
import { parseInput, type RepoContext } from './context';

interface ProviderRow {
  id: string;
  preset: ProviderProfile['preset'];
  name: string;
  base_url: string;
  model: string;
  context_window: number;
  learned_context_window: number | null;
  server_window: string | null;
  compaction_model: string | null;
  api_key_cipher: string | null;
  key_storage: KeyStorage;
  active: number;
  created_at: number;
  updated_at: number;
}

const toProfile = (r: ProviderRow): ProviderProfile => ({
  id: r.id,
  preset: r.preset,
  name: r.name,
  baseUrl: r.base_url,
  model: r.model,
  contextWindow: r.context_window,
  learnedContextWindow: r.learned_context_window,
  serverWindow: serverWindowOf(r.server_window),
  compactionModel: r.compaction_model,
  hasKey: r.api_key_cipher !== null,
  active: r.active === 1,
});

/** The stored server window, checked (a row this code cannot read is none: it is read again on the next save). */
function serverWindowOf(json: string | null): ServerWindow | null {
  if (json === null) return null;
  try {
    const parsed = ServerWindowSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** scheme://host:port of a base URL (null when it does not parse: never "the same host"). */
export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** A learned window is kept only when it is a positive integer under the profile's. */
function learnedFor(window: number | null, contextWindow: number): number | null {
  return window !== null && Number.isInteger(window) && window > 0 && window < contextWindow ? window : null;
}

export function createProvidersRepo(ctx: RepoContext, keys: KeyPolicy): ProvidersRepo {
  const { db } = ctx;
  const getRow = db.prepare<[string], ProviderRow>('SELECT * FROM provider_profiles WHERE id = ?');
  const listRows = db.prepare<[], ProviderRow>('SELECT * FROM provider_profiles ORDER BY created_at, rowid');
  const activeRow = db.prepare<[], ProviderRow>('SELECT * FROM provider_profiles WHERE active = 1 LIMIT 1');
  const insert = db.prepare(
    `INSERT INTO provider_profiles (id, preset, name, base_url, model, context_window, learned_context_window, compaction_model, api_key_cipher, key_storage, active, created_at, updated_at)
     VALUES (@id, @preset, @name, @base_url, @model, @context_window, @learned_context_window, @compaction_model, @api_key_cipher, @key_storage, @active, @created_at, @updated_at)`,
  );
  const update = db.prepare(
    `UPDATE provider_profiles SET preset = @preset, name = @name, base_url = @base_url, model = @model, context_window = @context_window,
       learned_context_window = @learned_context_window, compaction_model = @compaction_model, api_key_cipher = @api_key_cipher, key_storage = @key_storage, updated_at = @updated_at WHERE id = @id`,
  );
  const setLearned = db.prepare<[number | null, number, string]>(
    'UPDATE provider_profiles SET learned_context_window = ?, updated_at = ? WHERE id = ?',
  );
  const setServer = db.prepare<[string | null, number, string]>(
    'UPDATE provider_profiles SET server_window = ?, updated_at = ? WHERE id = ?',
  );
  const clearActive = db.prepare('UPDATE provider_profiles SET active = 0 WHERE active = 1');
  const markActive = db.prepare<[string]>('UPDATE provider_profiles SET active = 1 WHERE id = ?');
  const deleteRow = db.prepare<[string]>('DELETE FROM provider_profiles WHERE id = ?');
  // Its sessions go back to the active profile and its model.
  const releaseSessions = db.prepare<[string]>(
    'UPDATE sessions SET profile_id = NULL, model = NULL WHERE profile_id = ?',
  );
  // The sessions that followed the active profile keep it when another becomes active: switching
  // the default for new sessions never changes the model of a conversation under way. (A session
  // with no message yet follows the new one.)
  const keepProfile = db.prepare<[string]>(
    'UPDATE sessions SET profile_id = ? WHERE profile_id IS NULL AND message_count > 0',
  );
  const oldest = db.prepare<[], { id: string }>('SELECT id FROM provider_profiles ORDER BY created_at, rowid LIMIT 1');

  const mustRow = (id: string): ProviderRow => {
    const r = getRow.get(id);
    if (!r) throw new StoreError('not_found', `Provider profile ${id} does not exist.`);
    return r;
  };

  const sealer = createSealer(keys);
  function sealKey(apiKey: string): { api_key_cipher: string; key_storage: KeyStorage } {
    const { cipher, storage } = sealer.seal(
      apiKey,
      'Cannot save the API key: no secure storage (OS keychain) is available, and storing keys in plain text was not allowed.',
    );
    return { api_key_cipher: cipher, key_storage: storage };
  }

  const upsertTx = db.transaction((input: ProviderUpsert): ProviderProfile => {
    const p = parseInput(ProviderUpsertSchema, input, 'provider profile');
    const now = ctx.now();
    const existing = p.id !== undefined ? mustRow(p.id) : null;
    let key: { api_key_cipher: string | null; key_storage: KeyStorage } = existing
      ? { api_key_cipher: existing.api_key_cipher, key_storage: existing.key_storage }
      : { api_key_cipher: null, key_storage: 'none' };
    // A key belongs to the host it was saved for: a profile moved to another origin without a new
    // key loses it, or the next request (or providers.test) would hand it to that host.
    const moved = existing !== null && originOf(existing.base_url) !== originOf(p.baseUrl);
    if (p.apiKey === null || p.apiKey === '' || (moved && p.apiKey === undefined))
      key = { api_key_cipher: null, key_storage: 'none' };
    else if (typeof p.apiKey === 'string') key = sealKey(p.apiKey);
    // The server window is the runtime's to write (setServerWindow), after a save reads it.
    const row: Omit<ProviderRow, 'server_window'> = {
      id: existing?.id ?? ctx.newId(),
      preset: p.preset,
      name: p.name,
      base_url: p.baseUrl,
      model: p.model,
      context_window: p.contextWindow,
      // undefined keeps what the provider taught; null (the form's undo) forgets it. A learned
      // window is only ever smaller than the profile's.
      learned_context_window: learnedFor(
        p.learnedContextWindow === undefined ? (existing?.learned_context_window ?? null) : p.learnedContextWindow,
        p.contextWindow,
      ),
      compaction_model:
        p.compactionModel === undefined ? (existing?.compaction_model ?? null) : p.compactionModel || null,
      ...key,
      active: existing?.active ?? 0,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    if (existing) update.run(row);
    else insert.run(row);
    // The first profile becomes active so a fresh install works after one form.
    if (!activeRow.get()) markActive.run(row.id);
    return toProfile(mustRow(row.id));
  });

  const setActiveTx = db.transaction((id: string): ProviderProfile => {
    mustRow(id);
    const before = activeRow.get();
    if (before && before.id !== id) keepProfile.run(before.id);
    clearActive.run();
    markActive.run(id);
    return toProfile(mustRow(id));
  });

  const deleteTx = db.transaction((id: string): number => {
    const r = mustRow(id);
    const released = releaseSessions.run(id).changes;
    deleteRow.run(id);
    // Keep exactly one active profile while any exist: promote the oldest.
    const next = r.active === 1 ? oldest.get() : undefined;
    if (next) markActive.run(next.id);
    return released;
  });

  return {
    list: () => listRows.all().map(toProfile),
    get(id) {
      const r = getRow.get(id);
      return r ? toProfile(r) : null;
    },
    upsert: (p) => upsertTx.immediate(p),
    setLearnedWindow(id, window) {
      const r = mustRow(id);
      setLearned.run(learnedFor(window, r.context_window), ctx.now(), id);
      return toProfile(mustRow(id));
    },
    setServerWindow(id, window) {
      mustRow(id);
      setServer.run(window === null ? null : JSON.stringify(ServerWindowSchema.parse(window)), ctx.now(), id);
      return toProfile(mustRow(id));
    },
    setActive: (id) => setActiveTx.immediate(id),
    active() {
      const r = activeRow.get();
      return r ? toProfile(r) : null;
    },
    secret(id) {
      const r = mustRow(id);
      if (r.api_key_cipher === null) return null;
      return sealer.open(
        r.api_key_cipher,
        r.key_storage,
        `The API key of provider "${r.name}" is encrypted, but no secure storage is available to decrypt it.`,
      );
    },
    keyStorage: (id) => mustRow(id).key_storage,
    delete: (id) => deleteTx.immediate(id),
  };
}
