import {
  errorMessage,
  type ProviderProfile,
  type Rule,
  type SessionSummary,
  type Settings,
} from '@threadline/protocol';
import type { SessionRows, TurnRows } from '@threadline/store';
import type { ProviderClient } from '../provider/client';
import { sessionFolder } from '../workspace/sessionFolder';
import type { TurnDeps } from './deps';
import type { HelperScope } from './helperScope';
import type { Session } from '../session/session';
import type { SessionSnapshot } from '../session/history';

export interface SessionWorkInit {
  deps: TurnDeps;
  /** What the work reads of the store, read once by whoever starts it (store.turns.load). */
  rows: Pick<TurnRows, 'session' | 'rows'>;
  settings: Settings;
  profile: ProviderProfile;
  client: ProviderClient;
  signal: AbortSignal;
}

/**
 * A piece of work on one session: the `Session` it works on, plus what it reads once when it
 * starts (one store read: turns.load) and keeps for its whole run — the session row, the settings,
 * the profile and its client, its abort signal, the session's small rows (permission rules, the
 * sandbox's network switch, the session's own instructions) and, on first use, the working folder.
 * A chat turn is one (`Turn` adds its tools, checkpoint, memory and helpers); work outside a chat
 * turn — a manual compaction, the meter, `instructions.get`, a model switch — is one alone
 * (api/apiContext.ts `sessionWork`). A setting changed while it runs applies to the next piece of
 * work; a small row changed by a route, at its next read.
 */
export class SessionWork {
  readonly deps: TurnDeps;
  readonly sessionId: string;
  /** The session's row as the work read it. */
  readonly session: SessionSummary;
  readonly settings: Settings;
  /** May learn a smaller window from the provider's error (turn/recovery.ts). */
  profile: ProviderProfile;
  readonly client: ProviderClient;
  readonly signal: AbortSignal;
  /** The open session this work is on (session/session.ts). */
  readonly state: Session;
  /** Set in a helper's turn (helpers/helperTurn.ts): its prompt, memory and boundary; null elsewhere. */
  readonly helper: HelperScope | null = null;
  /**
   * The project's memory block of every request of a chat turn, fixed at its start (undefined
   * outside a turn: the project's current block, turn/project.ts).
   */
  projectBlock?: string | null;
  /** How many MCP servers contribute tools (null: asked again). */
  protected servers: number | null = null;
  private place: { folder: string } | { error: string } | null = null;
  private small: SessionRows;
  /** The session's rowsVersion the small rows above were read at. */
  private rowsRead = 0;

  constructor(init: SessionWorkInit) {
    this.deps = init.deps;
    this.session = init.rows.session;
    this.sessionId = init.rows.session.id;
    this.small = init.rows.rows;
    this.settings = init.settings;
    this.profile = init.profile;
    this.client = init.client;
    this.signal = init.signal;
    this.state = init.deps.sessionState(this.sessionId);
    this.rowsRead = this.state.rowsVersion;
  }

  /** How many times a tool that may write ran in this work (none outside a chat turn). */
  get folderWrites(): number {
    return 0;
  }

  /** A route wrote one of the session's small rows meanwhile: they are read again. */
  private fresh(): void {
    if (this.rowsRead === this.state.rowsVersion) return;
    this.rowsRead = this.state.rowsVersion;
    this.small = this.deps.store.turns.rows(this.sessionId);
  }

  /** The session's open snapshot (session/snapshot.ts): checked against the store when a turn takes its hold. */
  snapshot(): SessionSnapshot {
    return this.deps.sessions.get(this.sessionId);
  }

  /** How many MCP servers contribute tools to this session (the meter's "M servers"). */
  toolServers(): number {
    return (this.servers ??= this.deps.mcp?.serverCount(this.sessionId) ?? 0);
  }

  /** The session's working folder (not created here: the first tool that runs creates it), or why there is none. */
  folder(): { folder: string } | { error: string } {
    if (!this.place) {
      try {
        this.place = { folder: sessionFolder(this.deps.workspace, this.settings, this.session) };
      } catch (err) {
        this.place = { error: errorMessage(err) };
      }
    }
    return this.place;
  }

  /** The permission rules that may hold for the session (its own, every folder's and everywhere ones). */
  storedRules(): readonly Rule[] {
    this.fresh();
    return this.small.rules;
  }

  /** The domains this session's commands may reach (its network switch on: Settings' list), null: off. */
  sandboxNetwork(): readonly string[] | null {
    this.fresh();
    return this.small.sandboxNetwork ? this.settings.sandbox.networkDomains : null;
  }

  /** The session's own instructions (sessions.setSystemPrompt), null: none. */
  sessionPrompt(): string | null {
    this.fresh();
    return this.small.systemPrompt;
  }
}
