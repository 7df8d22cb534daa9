import {
  errorMessage,
  type ProviderProfile,
  type Rule,
  type SessionSummary,
  type Settings,
} from '@threadline/protocol';
import type { McpServerRecord, SessionRows, TurnRows } from '@threadline/store';
import type { ProjectPromotion } from '@threadline/context';
import type { ProjectPlace } from '../projectMemory/service';
import type { ProviderClient } from '../provider/client';
import type { TurnCheckpoint } from '../checkpoints/turn';
import type { TurnLeftovers } from '../sandbox/turnLeftovers';
import type { ToolRegistry } from '../tools/registry';
import type { DelegateRequest, ToolResult } from '../tools/types';
import type { HelperScope } from './helperScope';
import { presentSession, sessionFolder } from '../workspace/sessionFolder';
import type { TurnDeps } from './deps';
import type { Session } from '../session/session';
import type { SessionSnapshot } from '../session/snapshot';

export interface TurnInit {
  deps: TurnDeps;
  /** What the turn reads of the store, read once by whoever builds it (store.turns.load). */
  rows: Pick<TurnRows, 'session' | 'rows' | 'mcpServers'>;
  settings: Settings;
  profile: ProviderProfile;
  client: ProviderClient;
  signal: AbortSignal;
}

/**
 * What one turn (or one piece of work on a session: a manual compaction, the meter) needs, read
 * once when it starts (one store read: turns.load) and the same for all its steps: the session
 * row, the settings, the profile and its client, the session's small rows (permission rules,
 * the sandbox's network switch, the session's own instructions), the MCP servers, the runtime
 * state, and — on first use — the snapshot, the tool registry and the working folder. A setting
 * changed while it runs applies to the next turn; a small row changed by a route, at its next step.
 */
export class Turn {
  readonly deps: TurnDeps;
  readonly sessionId: string;
  readonly session: SessionSummary;
  readonly settings: Settings;
  /** May learn a smaller window from the provider's error (turn/recovery.ts). */
  profile: ProviderProfile;
  readonly client: ProviderClient;
  readonly signal: AbortSignal;
  readonly runtime: Session;
  /** A chat turn's checkpoint (absent outside a turn: a manual compaction runs no tools). */
  checkpoint?: TurnCheckpoint;
  /** What a chat turn's sandboxed commands left that makes code run later (held at its end). */
  leftovers?: TurnLeftovers;
  /** The MCP servers as the turn read them (McpManager.prepareTurn starts the ones it uses). */
  readonly mcpServers: readonly McpServerRecord[];
  /** The session's row after the turn's last write of it (the user message), for session.updated. */
  shown: SessionSummary;
  /** What the turn's memory refreshes found for the project's memory, proposed at its end (turn/project.ts). */
  readonly promotions: ProjectPromotion[] = [];
  /**
   * The project's memory block of every request of this turn, fixed at its start (undefined outside
   * a turn: the project's current block, turn/project.ts).
   */
  projectBlock?: string | null;
  /** The project of the session's folder as the turn start found it (null: none; undefined: not looked for). */
  projectPlace?: ProjectPlace | null;
  /**
   * Runs a delegate call's tasks in helpers (helpers/runHelpers.ts), set by whoever starts a chat
   * turn; null in a helper's own turn (helpers work one level deep) and outside a chat turn.
   */
  delegate: ((toolCallId: string, args: DelegateRequest) => Promise<ToolResult>) | null = null;
  /** Set when this is a helper's turn (helpers/helperTurn.ts): its prompt, memory and boundary. */
  readonly helper: HelperScope | null = null;
  /** Tools that may write ran this many times in this turn (what the prompt read may be stale then). */
  private writes = 0;
  private registry: ToolRegistry | null = null;
  private servers: number | null = null;
  private place: { folder: string } | { error: string } | null = null;
  private small: SessionRows;
  /** The runtime's rowsVersion the small rows above were read at. */
  private rowsRead = 0;

  constructor(init: TurnInit) {
    this.deps = init.deps;
    this.session = init.rows.session;
    this.shown = init.rows.session;
    this.sessionId = init.rows.session.id;
    this.small = init.rows.rows;
    this.mcpServers = init.rows.mcpServers;
    this.settings = init.settings;
    this.profile = init.profile;
    this.client = init.client;
    this.signal = init.signal;
    this.runtime = init.deps.runtime(this.sessionId);
    this.rowsRead = this.runtime.rowsVersion;
  }

  /** How many times a tool that may write ran in this turn (turn/view.ts reads the instructions again). */
  get folderWrites(): number {
    return this.writes;
  }

  /** A tool that may write ran: the folder (its instruction files) may have changed. */
  folderWritten(): void {
    this.writes += 1;
  }

  /** A route wrote one of the session's small rows meanwhile: they are read again. */
  private fresh(): void {
    if (this.rowsRead === this.runtime.rowsVersion) return;
    this.rowsRead = this.runtime.rowsVersion;
    this.small = this.deps.store.turns.rows(this.sessionId);
  }

  /** The session's open snapshot (session/snapshot.ts): checked against the store when the turn takes its hold. */
  snapshot(): SessionSnapshot {
    return this.deps.sessions.get(this.sessionId);
  }

  /** The built-in tools plus the session's MCP tools, as they are after the turn prepared its servers. */
  tools(): ToolRegistry {
    return (this.registry ??= this.deps.toolsFor(this.sessionId));
  }

  /** The MCP servers were prepared: the registry is taken again; `servers` is how many contribute tools (unknown: asked again). */
  toolsChanged(servers?: number): void {
    this.registry = null;
    this.servers = servers ?? null;
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

  /**
   * The session's row as the turn last wrote it, as the renderers see it: a session from before
   * working folders existed ('') shows the folder this turn works in (resolved once, `folder()`),
   * so announcing the turn does not resolve the default folder again.
   */
  shownRow(): SessionSummary {
    if (this.shown.workingFolder !== '') return this.shown;
    const place = this.folder();
    return 'folder' in place ? { ...this.shown, workingFolder: place.folder } : this.shown;
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

/**
 * The one place `session.updated` is sent: the row as the renderers see it (presentSession), and
 * whether it is busy. `row`: the session's row as the caller has just written it (else read now).
 * While the session's work runs, the row sent is kept for the update that ends it.
 */
export function emitSession(
  deps: Pick<TurnDeps, 'store' | 'emit' | 'workspace' | 'runtime'>,
  sessionId: string,
  settings: Settings,
  row?: SessionSummary,
): void {
  const session = row ?? deps.store.sessions.get(sessionId);
  const rt = deps.runtime(sessionId);
  rt.rowShown(session ?? null);
  deps.emit({
    type: 'session.updated',
    sessionId,
    session: session && presentSession(deps.workspace, settings, session),
    busy: rt.busy,
  });
}
