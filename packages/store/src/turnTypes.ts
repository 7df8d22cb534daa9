// The part of @threadline/store's surface for a turn's reads and writes (one transaction per step);
// types.ts re-exports it with the rest.
import type { Rule, ProviderProfile, SessionSummary, Settings, StoredMessage } from '@threadline/protocol';
import type { BranchHint, MemoryRefresh, MemoryRefreshResult } from './memoryTypes';
import type { NewMessage } from './messageTypes';
import type { McpServerRecord } from './mcpTypes';
import type { NewModelCall, ModelCall } from './usageTypes';

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
