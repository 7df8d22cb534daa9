import type { SessionSummary, Settings } from '@threadline/protocol';
import type { McpServerRecord, TurnRows } from '@threadline/store';
import type { ProjectPromotion } from '@threadline/context';
import type { ProjectPlace } from '../projectMemory/service';
import type { TurnCheckpoint } from '../checkpoints/turn';
import type { TurnLeftovers } from '../sandbox/turnLeftovers';
import type { ToolRegistry } from '../tools/registry';
import type { DelegateRequest, ToolResult } from '../tools/types';
import { presentSession } from '../workspace/sessionFolder';
import type { TurnDeps } from './deps';
import { SessionWork, type SessionWorkInit } from './sessionWork';

export interface TurnInit extends SessionWorkInit {
  /** What the turn reads of the store, read once by whoever builds it (store.turns.load). */
  rows: Pick<TurnRows, 'session' | 'rows' | 'mcpServers'>;
}

/**
 * One chat turn (or a helper's): a piece of work on the session (turn/sessionWork.ts: the Session,
 * the row, settings, profile, client, signal, small rows, folder) plus what only a turn has — the
 * MCP servers as it read them, its tool registry, checkpoint and leftovers, the project memory it
 * found and proposes, its helpers, and how often a tool that may write ran. The same for all its
 * steps: a setting changed while it runs applies to the next turn.
 */
export class Turn extends SessionWork {
  /** A chat turn's checkpoint. */
  checkpoint?: TurnCheckpoint;
  /** What a chat turn's sandboxed commands left that makes code run later (held at its end). */
  leftovers?: TurnLeftovers;
  /** The MCP servers as the turn read them (McpManager.prepareTurn starts the ones it uses). */
  readonly mcpServers: readonly McpServerRecord[];
  /** The session's row after the turn's last write of it (the user message), for session.updated. */
  shown: SessionSummary;
  /** What the turn's memory refreshes found for the project's memory, proposed at its end (turn/project.ts). */
  readonly promotions: ProjectPromotion[] = [];
  /** The project of the session's folder as the turn start found it (null: none; undefined: not looked for). */
  projectPlace?: ProjectPlace | null;
  /**
   * Runs a delegate call's tasks in helpers (helpers/runHelpers.ts), set by whoever starts a chat
   * turn; null in a helper's own turn (helpers work one level deep).
   */
  delegate: ((toolCallId: string, args: DelegateRequest) => Promise<ToolResult>) | null = null;
  /** Tools that may write ran this many times in this turn (what the prompt read may be stale then). */
  private writes = 0;
  private registry: ToolRegistry | null = null;

  constructor(init: TurnInit) {
    super(init);
    this.shown = init.rows.session;
    this.mcpServers = init.rows.mcpServers;
  }

  /** How many times a tool that may write ran in this turn (turn/view.ts reads the instructions again). */
  override get folderWrites(): number {
    return this.writes;
  }

  /** A tool that may write ran: the folder (its instruction files) may have changed. */
  folderWritten(): void {
    this.writes += 1;
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
}

/**
 * The one place `session.updated` is sent: the row as the renderers see it (presentSession), and
 * whether it is busy. `row`: the session's row as the caller has just written it (else read now).
 * While the session's work runs, the row sent is kept for the update that ends it.
 */
export function emitSession(
  deps: Pick<TurnDeps, 'store' | 'emit' | 'workspace' | 'sessionState'>,
  sessionId: string,
  settings: Settings,
  row?: SessionSummary,
): void {
  const session = row ?? deps.store.sessions.get(sessionId);
  const rt = deps.sessionState(sessionId);
  rt.rowShown(session ?? null);
  deps.emit({
    type: 'session.updated',
    sessionId,
    session: session && presentSession(deps.workspace, settings, session),
    busy: rt.busy,
  });
}
