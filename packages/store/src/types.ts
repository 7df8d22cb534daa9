// The public surface of @threadline/store. The runtime codes against these types and never
// writes SQL of its own; everything below is implemented by the repositories in this folder.
import type {
  Rule,
  RuleDraft,
  RuleOrigin,
  AttachmentRef,
  CallKind,
  ChatMessage,
  CompactionRecord,
  McpServerUpsert,
  MessageKind,
  ModelPrice,
  ProviderProfile,
  ProviderUpsert,
  SearchHit,
  SessionSummary,
  Settings,
  SettingsPatch,
  StepReport,
  StoredMessage,
  Strategy,
  Trigger,
  Visibility,
} from '@threadline/protocol';
import type { BranchHint, MemoryRefresh, MemoryRefreshResult, MemoryRepo } from './memoryTypes';
import type { CheckpointsRepo } from './checkpointTypes';
import type { ProjectMemoryRepo } from './projectTypes';
import type { HeldFilesRepo } from './heldTypes';

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

// ─── messages ───────────────────────────────────────────────────────────────────────────────

/** A message to append. id, seq and createdAt are assigned by the store unless given. */
export interface NewMessage extends ChatMessage {
  /** Optional caller-chosen id (e.g. the id already used in streaming `message.delta` events). */
  id?: string;
  /** Default 'normal'. */
  kind?: MessageKind;
  /** Default visible to both (compactions.apply defaults inserted messages to agent-only). */
  visibility?: Visibility;
  tokens?: number | null;
  fullOutput?: string | null;
  meta?: Record<string, unknown>;
  createdAt?: number;
}

export interface ListMessagesOptions {
  /** Include `fullOutput` (can be up to 1 MiB per tool result). Default true. */
  fullOutput?: boolean;
  /** Only messages with seq > afterSeq. */
  afterSeq?: number;
}

export interface MessageVersions {
  /** 1-based place among the versions, oldest first. */
  index: number;
  count: number;
  ids: string[];
}

export interface MessagesRepo {
  /** The active branch of a session (see switchTo), ordered by seq (oldest first). */
  list(sessionId: string, opts?: ListMessagesOptions): StoredMessage[];
  /** Every message of every branch, ordered by seq. */
  listAll(sessionId: string): StoredMessage[];
  get(id: string): StoredMessage | null;
  /**
   * One transaction: every message or none. Assigns id, seq (contiguous), createdAt; touches the
   * session. The first message follows `parentId` (default: the active leaf; null: a new first
   * message), each next one the one before; the last becomes the active leaf.
   */
  append(sessionId: string, msgs: NewMessage[], opts?: { parentId?: string | null }): StoredMessage[];
  /** The last message of the active branch (null: none yet). */
  leaf(sessionId: string): string | null;
  /** Messages that have other versions (same parent, same slot: request or reply), by id. */
  versions(sessionId: string): Record<string, MessageVersions>;
  /**
   * Shows the branch through message `id`: its newest descendant becomes the active leaf (with
   * `exact`, `id` itself, so the next append continues from it). Returns the new leaf.
   */
  switchTo(sessionId: string, id: string, opts?: { exact?: boolean }): string;
  /** Full-text search over user and assistant messages of every session, newest first. */
  search(query: string, opts?: { limit?: number }): SearchHit[];
  /** Cache of token counts: the engine persists what it counted so a reopened session recounts nothing. */
  setTokens(updates: { id: string; tokens: number | null }[]): void;
  /**
   * Replace a message's UI metadata (tool status, duration, approval decision). History is
   * append-only; meta is the one place the runtime records what happened *to* a message later
   * (a tool call approved or denied after it was stored). It never reaches the model.
   */
  setMeta(id: string, meta: Record<string, unknown>): StoredMessage;
  count(sessionId: string): number;
  /** seq of the newest message, 0 for an empty session. */
  lastSeq(sessionId: string): number;
}

// ─── sessions ───────────────────────────────────────────────────────────────────────────────

export interface SessionsRepo {
  /**
   * Title defaults to '' (the renderer shows a localized "Untitled"). `workingFolder`: the
   * resolved folder (the runtime checks it); null/undefined stores none (summary says '').
   */
  create(title?: string, workingFolder?: string | null): SessionSummary;
  setWorkingFolder(id: string, folder: string): SessionSummary;
  /** Most recently updated first. messageCount counts user-visible messages. */
  list(): SessionSummary[];
  get(id: string): SessionSummary | null;
  rename(id: string, title: string): SessionSummary;
  /** Deletes the session and every row that belongs to it. Throws not_found if missing. */
  delete(id: string): void;
  /** Bump updatedAt (appends do this themselves). */
  touch(id: string): void;
  /** The session's provider profile and model (null, null: the active profile and its model). */
  setModel(id: string, profileId: string | null, model: string | null): SessionSummary;
  /** null or blank removes it; does not bump updatedAt (it is not activity). */
  setSystemPrompt(id: string, text: string | null): void;
}

// ─── attachments ──────────────────────────────────────────────────────────────────────────────

export interface NewAttachment {
  kind: AttachmentRef['kind'];
  name: string;
  mime: string;
  /** The file as given (an image already resized); an image's are kept, a text's only counted. */
  bytes: Uint8Array;
  width?: number;
  height?: number;
  pages?: number;
  /** A text attachment's text (a text file's, a PDF's extracted text, a long paste). */
  text?: string;
  /** An image's thumbnail (its bytes and type), kept beside the image. */
  thumb?: { bytes: Uint8Array; mime: string };
}

export type StoredAttachment = AttachmentRef;

export interface AttachmentsRepo {
  /** Stores the file once per content: the same bytes again give the same id (with this name). */
  add(a: NewAttachment): AttachmentRef;
  get(id: string): StoredAttachment | null;
  /** An image's bytes (null for a text or an unknown id). */
  bytes(id: string): Buffer | null;
  /** A text attachment's whole text (null for an image or an unknown id). */
  text(id: string): string | null;
  /** An image's thumbnail (null when it has none: stored before thumbnails, or a text). */
  thumb(id: string): { bytes: Buffer; mime: string } | null;
  /**
   * Deletes an attachment no message refers to (one removed from the composer before sending);
   * false when a message refers to it or it does not exist.
   */
  discard(id: string): boolean;
  /**
   * Deletes the attachments no message refers to that were last uploaded before `before` (ms):
   * files attached in a composer and never sent. Returns how many.
   */
  dropUnreferenced(before: number): number;
}

// ─── compactions ────────────────────────────────────────────────────────────────────────────

export interface NewCompaction {
  id?: string;
  strategy: Strategy;
  trigger: Trigger;
  steps: StepReport[];
  /** History ids the agent no longer sees; all must belong to the session. */
  hiddenIds: string[];
  tokensBefore: number;
  tokensAfter: number;
  summary?: string | null;
  instructions?: string | null;
  /** Default: the session's last seq before the inserted messages. */
  afterSeq?: number;
}

export interface CompactionsRepo {
  /**
   * Atomically: append `inserted` (default visibility agent-only, meta.compactionId set) and
   * store the record with their ids as insertedIds. Either both exist afterwards or neither.
   */
  apply(
    sessionId: string,
    record: NewCompaction,
    inserted: NewMessage[],
  ): { record: CompactionRecord; inserted: StoredMessage[] };
  /** Deactivate the newest active compaction of the active branch; null when there is none. */
  undoLast(sessionId: string): CompactionRecord | null;
  /** Every record of the active branch (made while its messages were the session's), oldest first. */
  list(sessionId: string): CompactionRecord[];
  /** Every record of every branch, oldest first. */
  listAll(sessionId: string): CompactionRecord[];
  /** Active records of the active branch, oldest first. */
  active(sessionId: string): CompactionRecord[];
  get(id: string): CompactionRecord | null;
}

// ─── memory: memoryTypes.ts ─────────────────────────────────────────────────────────────────

export * from './memoryTypes';

// ─── settings ───────────────────────────────────────────────────────────────────────────────

export interface EnvOverride {
  /** The variable that set it, e.g. THREADLINE_LANGUAGE or AGIME_CFPM_RUNTIME_VISIBILITY. */
  variable: string;
  /** Dotted settings path, e.g. 'cfpm.runtimeVisibility'. */
  path: string;
  raw: string;
}

export interface SettingsRepo {
  /** Stored settings with defaults, then environment overrides applied. */
  get(): Settings;
  /** Stored settings only (what the settings screen edits). */
  stored(): Settings;
  /** Validates the patch (zod), merges into the stored settings, returns the effective settings. */
  set(patch: SettingsPatch): Settings;
  /** What the environment overrides (so the UI can say "set by THREADLINE_…"). */
  envOverrides(): { patch: SettingsPatch; sources: EnvOverride[] };
}

// ─── providers & approvals ──────────────────────────────────────────────────────────────────

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
  setActive(id: string): ProviderProfile;
  /**
   * The window the provider stated in a context-limit error (null: forget it). Kept only when
   * smaller than the profile's contextWindow.
   */
  setLearnedWindow(id: string, window: number | null): ProviderProfile;
  active(): ProviderProfile | null;
  /** The decrypted API key, for the runtime only. */
  secret(id: string): string | null;
  /** How the key of a profile is stored (the UI may warn about 'plaintext'). */
  keyStorage(id: string): KeyStorage;
  /** Deletes the profile and its key; sessions that used it go back to the active one. Returns how many. */
  delete(id: string): number;
}

/** A rule as it is added or changed (what rules.save takes; the store checks it with the protocol's schema). */
export type NewRule = Omit<RuleDraft, 'id'>;

/** Permission rules (migration 21): stored by the app, never by the agent. */
export interface RulesRepo {
  /** Every rule, oldest first. */
  list(): Rule[];
  /** The session's own rules and every folder and everywhere rule (the caller keeps the folders that hold). */
  forSession(sessionId: string): Rule[];
  get(id: string): Rule | null;
  add(rule: NewRule, origin: RuleOrigin): Rule;
  /** Changes what a rule decides, matches and where it holds; keeps its origin and hits. Throws not_found. */
  update(id: string, rule: NewRule): Rule;
  remove(id: string): boolean;
  /** Counts a decision of each rule (hits, last hit now). */
  hit(ids: readonly string[]): void;
}

/** A session's settings of the OS sandbox its commands run in. */
export interface SessionSandboxRepo {
  /** "Allow network for commands" (default false). */
  network(sessionId: string): boolean;
  setNetwork(sessionId: string, allowed: boolean): void;
}

// ─── running tool processes (crash hygiene) ────────────────────────────────────────────────────

export interface ToolProcess {
  id: string;
  sessionId: string;
  toolCallId: string;
  pid: number;
  /** The process group (POSIX), null on Windows. */
  pgid: number | null;
  command: string;
  /** The app process that started it. */
  hostPid: number;
  startedAt: number;
}

export interface ProcessesRepo {
  /** Recorded when a tool process starts; returns its id. */
  add(p: Omit<ToolProcess, 'id' | 'startedAt'>): string;
  /** Removed when it ends. */
  remove(id: string): void;
  /** Oldest first. */
  list(): ToolProcess[];
}

// ─── MCP servers ────────────────────────────────────────────────────────────────────────────

/** A stored MCP server without its secrets (env values, header values). */
export interface McpServerRecord {
  id: string;
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string[];
  url: string | null;
  envNames: string[];
  headerNames: string[];
  /** stdio: the child's folder as configured (null: a neutral folder under the data folder). */
  cwd: string | null;
  /** stdio: names of the app's environment variables the child gets beyond the core set. */
  envAllow: string[];
  enabled: boolean;
  startup: 'lazy' | 'launch';
  autoApprove: boolean | string[];
  createdAt: number;
  updatedAt: number;
}

export interface McpServersRepo {
  /** Oldest first. */
  list(): McpServerRecord[];
  get(id: string): McpServerRecord | null;
  /**
   * Creates (no id) or updates. `env` / `headers` undefined keeps them; given, they are the new
   * set of names, where a null value keeps the stored value of that name. Names are unique.
   */
  upsert(input: McpServerUpsert): McpServerRecord;
  remove(id: string): void;
  /** The decrypted env values and headers, for the runtime that starts the server only. */
  secrets(id: string): { env: Record<string, string>; headers: Record<string, string> };
  /** The tools of a server the user approved (or that were pinned at its first listing). */
  pins(id: string): McpToolPin[];
  /** Pins these tools as they are now (replacing an older pin of the same name). */
  pin(id: string, tools: readonly Omit<McpToolPin, 'pinnedAt'>[]): void;
}

export interface McpToolPin {
  tool: string;
  /** sha256 of the tool's name, description and input schema. */
  hash: string;
  description: string;
  pinnedAt: number;
}

// ─── model calls and prices ────────────────────────────────────────────────────────────

export interface NewModelCall {
  sessionId: string | null;
  profileId: string | null;
  model: string;
  kind: CallKind;
  compactionId?: string | null;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** When it was answered (ms); default the store's clock. */
  createdAt?: number;
}

/** Calls summed by what their price and place depend on. */
export interface ModelCallGroup {
  profileId: string | null;
  model: string;
  kind: CallKind;
  compactionId: string | null;
  calls: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
}

/** One stored call, as the store keeps it (token counts rounded, cached never above prompt). */
export interface ModelCall extends Required<Omit<NewModelCall, 'compactionId'>> {
  id: number;
  compactionId: string | null;
}

/** A session's model calls as its cost needs them (UsageRepo.calls). */
export interface SessionCalls {
  /** As sessionGroups lists them (in the order each group's first call was stored). */
  groups: ModelCallGroup[];
  /** Each profile's own prices by model, by profile id. */
  prices: Record<string, Record<string, ModelPrice>>;
  lastCallAt: number | null;
}

export interface UsageRepo {
  /** Stores one call (created_at default the store's clock): the row as stored. */
  record(call: NewModelCall): ModelCall;
  /** The summary calls of a compaction, once its record exists. */
  linkCompaction(callIds: readonly number[], compactionId: string): void;
  /** A session's calls, grouped by profile, model, kind and compaction. */
  sessionGroups(sessionId: string): ModelCallGroup[];
  /** When the session's last conversation or summary call was stored (ms; titles not), null before any. */
  lastCallAt(sessionId: string): number | null;
  /** What a session's cost is worked out from, in one read: its groups, the own prices of every profile they name, and lastCallAt. */
  calls(sessionId: string): SessionCalls;
  /** Calls since `sinceMs`, grouped by local day (UTC + tzOffsetMinutes), profile and model. */
  dailyGroups(
    sinceMs: number,
    tzOffsetMinutes: number,
  ): (Omit<ModelCallGroup, 'kind' | 'compactionId'> & { day: string })[];
  /** A profile's own prices by model. */
  prices(profileId: string): Record<string, ModelPrice>;
  /** Sets (or with null removes) a profile's own price of a model. */
  setPrice(profileId: string, model: string, price: ModelPrice | null): void;
}

// ─── a turn's reads and writes ─────────────────────────────────────────────────────────────

/** The small rows a session's turn reads and the routes change while it runs (see TurnsRepo.rows). */
export interface SessionRows {
  /** The rules that may hold for the session (RulesRepo.forSession). */
  rules: Rule[];
  /** The session's own instructions (sessions.setSystemPrompt), null: none. */
  systemPrompt: string | null;
  /** "Allow network for commands" of the session. */
  sandboxNetwork: boolean;
}

/** What one turn reads of the store once, in one read transaction (TurnsRepo.load). */
export interface TurnRows {
  session: SessionSummary;
  /** The effective settings (SettingsRepo.get); null: they could not be read. */
  settings: Settings | null;
  /** The session's own profile while it exists, else the active one; null: none configured. */
  profile: ProviderProfile | null;
  /** `profile` is the session's own (sessions.setModel), not the active one. */
  ownProfile: boolean;
  /** The profile's API key, only when asked for (`secret: true`); null: none. */
  secret: string | null;
  mcpServers: McpServerRecord[];
  rows: SessionRows;
}

/** What one step of a turn stores together (TurnsRepo.commit). */
export interface TurnStep {
  /** Appended as MessagesRepo.append does (after the active leaf, or `parentId`). */
  messages?: NewMessage[];
  parentId?: string | null;
  /** The model call the step's reply came from (UsageRepo.record). */
  call?: NewModelCall;
  /** A memory refresh (MemoryRepo.refresh) after the messages, then its notice after it. */
  memory?: { refresh: MemoryRefresh; branch?: BranchHint; notice?: NewMessage };
}

export interface TurnStepResult {
  messages: StoredMessage[];
  call: ModelCall | null;
  memory: MemoryRefreshResult | null;
  notice: StoredMessage | null;
  /** The session's row after the step. */
  session: SessionSummary;
}

export interface TurnsRepo {
  /**
   * Everything a turn reads once, in one read transaction: the session row, the settings, the
   * profile (and with `secret` its key), the MCP servers and the session's small rows. null: no
   * such session. A key that cannot be decrypted throws.
   */
  load(sessionId: string, opts?: { secret?: boolean }): TurnRows | null;
  /** The session's small rows again (a route changed one while a turn runs). Throws not_found. */
  rows(sessionId: string): SessionRows;
  /** One transaction: the step's messages, its model call, the memory refresh and its notice. */
  commit(sessionId: string, step: TurnStep): TurnStepResult;
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
  turns: TurnsRepo;
  /** Runs several repository changes as one transaction: all of them or none. */
  transaction<T>(fn: () => T): T;
  close(): void;
}
