import {
  errorMessage,
  type ApprovalPolicy,
  type ProviderProfile,
  type SessionSummary,
  type Settings,
} from '@threadline/protocol';
import type { ProviderClient } from '../provider/client';
import type { TurnCheckpoint } from '../checkpoints/turn';
import type { ToolRegistry } from '../tools/registry';
import { presentSession, sessionFolder } from '../workspace/sessionFolder';
import type { TurnDeps } from './deps';
import type { SessionRuntime } from './sessionRuntime';
import type { SessionSnapshot } from './snapshot';

export interface TurnInit {
  deps: TurnDeps;
  /** The session's row, read once by whoever builds the turn. */
  session: SessionSummary;
  settings: Settings;
  profile: ProviderProfile;
  client: ProviderClient;
  signal: AbortSignal;
}

/**
 * What one turn (or one piece of work on a session: a manual compaction, the meter) needs, read
 * once when it starts and the same for all its steps: the session row, the settings, the profile
 * and its client, the runtime state, and — on first use — the snapshot, the tool registry, the
 * working folder and the session's small rows (approval overrides, the sandbox's network switch,
 * the session's own instructions). A setting changed while it runs applies to the next turn.
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
  readonly runtime: SessionRuntime;
  /** A chat turn's checkpoint (absent outside a turn: a manual compaction runs no tools). */
  checkpoint?: TurnCheckpoint;
  private registry: ToolRegistry | null = null;
  private servers: number | null = null;
  private place: { folder: string } | { error: string } | null = null;
  private readonly overrides = new Map<string, ApprovalPolicy | null>();
  private network: boolean | null = null;
  private ownPrompt: { text: string | null } | null = null;
  /** The runtime's rowsVersion the small rows above were read at. */
  private rowsRead = 0;

  constructor(init: TurnInit) {
    this.deps = init.deps;
    this.session = init.session;
    this.sessionId = init.session.id;
    this.settings = init.settings;
    this.profile = init.profile;
    this.client = init.client;
    this.signal = init.signal;
    this.runtime = init.deps.runtime(this.sessionId);
    this.rowsRead = this.runtime.rowsVersion;
  }

  /** A route wrote one of the session's small rows meanwhile: they are read again. */
  private fresh(): void {
    if (this.rowsRead === this.runtime.rowsVersion) return;
    this.rowsRead = this.runtime.rowsVersion;
    this.overrides.clear();
    this.network = null;
    this.ownPrompt = null;
  }

  /** The session's open snapshot (turn/snapshot.ts): checked against the store when the turn takes its hold. */
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

  /** The session's own policy for a tool (approvals.set, "always" on a card), null when it has none. */
  policyOverride(toolName: string): ApprovalPolicy | null {
    this.fresh();
    if (!this.overrides.has(toolName))
      this.overrides.set(toolName, this.deps.store.approvals.get(this.sessionId, toolName) ?? null);
    return this.overrides.get(toolName) ?? null;
  }

  /** "Allow network for commands" of this session. */
  sandboxNetwork(): boolean {
    this.fresh();
    return (this.network ??= this.deps.store.sessionSandbox.network(this.sessionId));
  }

  /** The session's own instructions (sessions.setSystemPrompt), null: none. */
  sessionPrompt(): string | null {
    this.fresh();
    return (this.ownPrompt ??= { text: this.deps.store.sessions.systemPrompt(this.sessionId) }).text;
  }
}

/** The one place `session.updated` is sent: the row as the renderers see it (presentSession), and whether it is busy. */
export function emitSession(
  deps: Pick<TurnDeps, 'store' | 'emit' | 'workspace' | 'runtime'>,
  sessionId: string,
  settings: Settings,
): void {
  const session = deps.store.sessions.get(sessionId);
  deps.emit({
    type: 'session.updated',
    sessionId,
    session: session && presentSession(deps.workspace, settings, session),
    busy: deps.runtime(sessionId).busy,
  });
}
