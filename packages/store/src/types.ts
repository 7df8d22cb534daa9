// The public surface of @threadline/store. The runtime codes against these types and never
// writes SQL of its own; everything below is implemented by the repositories in this folder.
import type { MemoryRepo } from './memoryTypes';
import type { CheckpointsRepo } from './checkpointTypes';
import type { ProjectMemoryRepo } from './projectTypes';
import type { HeldFilesRepo } from './heldTypes';
import type { HelpersRepo } from './helperTypes';
import type { MessagesRepo } from './messageTypes';
import type { SessionsRepo } from './sessionTypes';
import type { AttachmentsRepo } from './attachmentTypes';
import type { CompactionsRepo } from './compactionTypes';
import type { SettingsRepo } from './settingsTypes';
import type { ProvidersRepo } from './providerTypes';
import type { RulesRepo, SessionSandboxRepo } from './ruleTypes';
import type { ProcessesRepo } from './processTypes';
import type { McpServersRepo } from './mcpTypes';
import type { UsageRepo } from './usageTypes';
import type { TurnsRepo } from './turnTypes';

export * from './memoryTypes';
export * from './messageTypes';
export * from './sessionTypes';
export * from './attachmentTypes';
export * from './compactionTypes';
export * from './settingsTypes';
export * from './providerTypes';
export * from './ruleTypes';
export * from './processTypes';
export * from './mcpTypes';
export * from './usageTypes';
export * from './turnTypes';

/**
 * Encrypts secrets at rest (API keys, MCP env values and headers): the one interface. Electron
 * passes safeStorage, browser mode the key file of secrets/fileEncryptor.ts, tests a reversible fake.
 */
export interface Encryptor {
  encrypt(plain: string): string;
  decrypt(cipher: string): string;
  /** false when the OS keychain is unusable (e.g. a headless Linux box without a keyring). */
  available(): boolean;
}

export interface OpenStoreOptions {
  /** Path of the SQLite file; created (with its folder) when missing. */
  file: string;
  encryptor?: Encryptor;
  /**
   * Browser mode on a headless box has no keychain: only then may keys be stored in plain text,
   * marked as such in the row (`key_storage = 'plaintext'`). Without this flag and without a
   * usable encryptor, saving a key throws `StoreError('no_encryptor')`.
   */
  allowPlaintextKeys?: boolean;
  /** Clock in ms (injected for tests). Default Date.now. */
  now?: () => number;
  /** Id generator. Default crypto.randomUUID. */
  newId?: () => string;
  /** Environment for setting overrides (THREADLINE_* / AGIME_*). Default process.env. */
  env?: Record<string, string | undefined>;
  /**
   * What to do with a corrupt or non-SQLite file (damagedDatabase.ts). 'throw' (default): copy it
   * aside to `<file>.corrupt-<timestamp>` and throw. 'report': throw without touching anything, the
   * error naming (`keepAs`) where starting fresh would keep it: what the shells use to offer a
   * fresh database. 'recreate': rename it (and its -wal/-shm) to that dated name beside it (never
   * deleted) and start an empty database; `store.recovered` then says where the old file went.
   */
  onCorrupt?: 'throw' | 'report' | 'recreate';
  /**
   * With 'recreate': the name to keep the damaged file as (the `keepAs` a 'report' error gave, so
   * the offer the user accepted names the file that results); a free dated name when it is taken.
   */
  keepDamagedAs?: string;
}

export type StoreErrorCode =
  | 'newer_schema'
  | 'corrupt'
  | 'not_sqlite'
  | 'invalid_setting'
  | 'invalid_env'
  | 'invalid_input'
  | 'not_found'
  | 'no_encryptor'
  | 'closed';

/** Every failure the store raises on purpose. `message` is a full sentence meant for a human. */
export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** For corrupt / not_sqlite: where the damaged file was copied. */
    readonly backupFile?: string,
    /** For corrupt / not_sqlite with onCorrupt 'report': where starting fresh would keep the file. */
    readonly keepAs?: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

// ─── the store ──────────────────────────────────────────────────────────────────────────────

export interface Store {
  readonly file: string;
  /** Schema version after migrations. */
  readonly schemaVersion: number;
  /** Set when onCorrupt: 'recreate' moved a damaged file aside. */
  readonly recovered: { reason: 'corrupt' | 'not_sqlite'; backupFile: string } | null;
  sessions: SessionsRepo;
  messages: MessagesRepo;
  compactions: CompactionsRepo;
  memory: MemoryRepo;
  settings: SettingsRepo;
  providers: ProvidersRepo;
  rules: RulesRepo;
  sessionSandbox: SessionSandboxRepo;
  processes: ProcessesRepo;
  mcpServers: McpServersRepo;
  attachments: AttachmentsRepo;
  usage: UsageRepo;
  checkpoints: CheckpointsRepo;
  /** Project memory: facts kept across the sessions of a working folder. */
  projectMemory: ProjectMemoryRepo;
  held: HeldFilesRepo;
  helpers: HelpersRepo;
  turns: TurnsRepo;
  /** Runs several repository changes as one transaction: all of them or none. */
  transaction<T>(fn: () => T): T;
  close(): void;
}
