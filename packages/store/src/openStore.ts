import { randomUUID } from 'node:crypto';
import { StoreError, type OpenStoreOptions, type Store } from './types';
import { isCorruptionError, openDatabase } from './db/connection';
import { readUserVersion } from './db/migrations';
import { parseEnvOverrides } from './settings/envOverrides';
import { createSettingsRepo } from './settings/settingsRepo';
import type { RepoContext } from './repos/context';
import { createSessionsRepo } from './repos/sessions';
import { createMessagesRepo } from './repos/messages';
import { createCompactionsRepo } from './repos/compactions';
import { createMemoryRepo } from './repos/memory';
import { createProvidersRepo } from './repos/providers';
import { createRulesRepo } from './repos/rules';
import { createSessionSandboxRepo } from './repos/sessionSandbox';
import { createProcessesRepo } from './repos/processes';
import { createMcpServersRepo } from './repos/mcpServers';
import { createAttachmentsRepo } from './repos/attachments';
import { createCheckpointsRepo } from './repos/checkpoints';
import { createHeldFilesRepo } from './repos/heldFiles';
import { createUsageRepo } from './repos/usage';
import { createTurnsRepo } from './repos/turns';
import { createProjectMemoryRepo } from './repos/projectMemory';

/**
 * Opens (creating and migrating when needed) the database at `opts.file`.
 * Throws StoreError: newer_schema (file untouched), corrupt / not_sqlite (see onCorrupt),
 * invalid_env (a THREADLINE_* / AGIME_* override has a bad value).
 */
export function openStore(opts: OpenStoreOptions): Store {
  const now = opts.now ?? Date.now;
  // Parse the environment first: a bad override must not leave a half-opened database behind.
  const env = parseEnvOverrides(opts.env ?? process.env);
  const { db, recovered } = openDatabase({
    file: opts.file,
    onCorrupt: opts.onCorrupt ?? 'throw',
    now,
    keepDamagedAs: opts.keepDamagedAs,
  });
  const ctx: RepoContext = { db, now, newId: opts.newId ?? randomUUID };
  const messages = createMessagesRepo(ctx);
  const { insertInTx: _internal, ...publicMessages } = messages;
  // After close() every call says so plainly instead of better-sqlite3's TypeError, and damage
  // found while running (beyond what the open-time check covers) is reported as such.
  let closed = false;
  const guard = <T extends object>(repo: T): T => {
    const out: Record<string, unknown> = {};
    for (const [key, fn] of Object.entries(repo)) {
      out[key] = (...args: unknown[]) => {
        if (closed) throw new StoreError('closed', `The store ${opts.file} is closed.`);
        try {
          return (fn as (...a: unknown[]) => unknown)(...args);
        } catch (err) {
          if (isCorruptionError(err))
            throw new StoreError(
              'corrupt',
              `The database ${opts.file} is damaged (${(err as Error).message}). Close Threadline and keep a copy of the file.`,
            );
          throw err;
        }
      };
    }
    return out as T;
  };
  const keys = { encryptor: opts.encryptor, allowPlaintextKeys: opts.allowPlaintextKeys ?? false };
  const repos = {
    sessions: createSessionsRepo(ctx),
    messages: publicMessages,
    memory: createMemoryRepo(ctx),
    settings: createSettingsRepo(ctx, env),
    providers: createProvidersRepo(ctx, keys),
    rules: createRulesRepo(ctx),
    sessionSandbox: createSessionSandboxRepo(ctx),
    mcpServers: createMcpServersRepo(ctx, keys),
    usage: createUsageRepo(ctx),
  };
  return {
    file: opts.file,
    schemaVersion: readUserVersion(db),
    recovered,
    sessions: guard(repos.sessions),
    messages: guard(repos.messages),
    compactions: guard(createCompactionsRepo(ctx, messages)),
    memory: guard(repos.memory),
    settings: guard(repos.settings),
    providers: guard(repos.providers),
    rules: guard(repos.rules),
    sessionSandbox: guard(repos.sessionSandbox),
    processes: guard(createProcessesRepo(ctx)),
    mcpServers: guard(repos.mcpServers),
    attachments: guard(createAttachmentsRepo(ctx)),
    checkpoints: guard(createCheckpointsRepo(ctx)),
    held: guard(createHeldFilesRepo(ctx)),
    usage: guard(repos.usage),
    projectMemory: guard(createProjectMemoryRepo(ctx)),
    // One read of a turn's rows, one transaction per step: composed of the repositories above.
    turns: guard(createTurnsRepo(ctx, repos)),
    transaction: <T>(fn: () => T): T => {
      if (closed) throw new StoreError('closed', `The store ${opts.file} is closed.`);
      // Repository calls inside become savepoints of this one transaction.
      return db.transaction(fn).immediate();
    },
    close: () => {
      closed = true;
      if (db.open) db.close(); // checkpoints the WAL into the main file
    },
  };
}
