import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerInfo, McpServerStatus } from '@threadline/protocol';
import type { McpServerRecord, Store } from '@threadline/store';
import { ToolRegistry } from '../tools/registry';
import type { ToolDefinition } from '../tools/types';
import { McpConnection } from './connection';
import { mcpToolDefinition } from './tools';

export interface McpManagerOptions {
  store: Store;
  /** How long a start (connect + list tools) may take before the server counts as failed. */
  startTimeoutMs?: number;
  /** Restarts after a crash: base · 2^(n−1) ms, at most maxMs, maxAttempts in a row. */
  backoff?: { baseMs: number; maxMs: number; maxAttempts: number };
  /** The working folder of a session (null: none, the process's own folder is used). */
  workingFolder?: (sessionId: string | null) => string | null;
  now?: () => number;
}

interface ServerState {
  status: Exclude<McpServerStatus, 'disabled'>;
  tools: Tool[];
  error?: string;
  conn: McpConnection | null;
  starting: Promise<void> | null;
  crashes: number;
  connectedAt: number;
  timer: NodeJS.Timeout | null;
  /** Bumped by stop/restart/edit: a start or crash of an older generation is ignored. */
  generation: number;
}

/** A connection that lived this long was fine: its next crash starts the backoff over. */
const STABLE_MS = 60_000;

/**
 * Every configured MCP server's process or HTTP session: started lazily (or at app start),
 * restarted with backoff after a crash, stopped with the app. Nothing here ever throws into a
 * turn: a server that fails is in `error` with its reason and offers no tools.
 */
export class McpManager {
  private readonly states = new Map<string, ServerState>();
  private readonly sessionOff = new Map<string, Set<string>>();
  private readonly registries = new Map<string, ToolRegistry>();
  private version = 0;
  private disposed = false;
  private readonly startTimeoutMs: number;
  private readonly backoff: { baseMs: number; maxMs: number; maxAttempts: number };
  private readonly now: () => number;

  constructor(private readonly opts: McpManagerOptions) {
    this.startTimeoutMs = opts.startTimeoutMs ?? 30_000;
    this.backoff = opts.backoff ?? { baseMs: 1000, maxMs: 30_000, maxAttempts: 5 };
    this.now = opts.now ?? Date.now;
  }

  private state(id: string): ServerState {
    let s = this.states.get(id);
    if (!s) {
      s = {
        status: 'stopped',
        tools: [],
        conn: null,
        starting: null,
        crashes: 0,
        connectedAt: 0,
        timer: null,
        generation: 0,
      };
      this.states.set(id, s);
    }
    return s;
  }

  private changed(): void {
    this.version++;
    this.registries.clear();
  }

  info(record: McpServerRecord, sessionId?: string): McpServerInfo {
    const s = this.states.get(record.id);
    const status: McpServerStatus = !record.enabled ? 'disabled' : (s?.status ?? 'stopped');
    const out: McpServerInfo = {
      id: record.id,
      name: record.name,
      transport: record.transport,
      enabled: record.enabled,
      startup: record.startup,
      autoApprove: record.autoApprove,
      status,
      tools: status === 'connected' ? (s?.tools.map((t) => t.name) ?? []) : [],
    };
    if (record.transport === 'stdio') {
      out.command = record.command ?? '';
      out.args = record.args;
      out.env = record.envNames.map((name) => ({ name, set: true }));
    } else {
      out.url = record.url ?? '';
      out.headers = record.headerNames.map((name) => ({ name, set: true }));
    }
    if (status === 'error' && s?.error) out.error = s.error;
    if (sessionId !== undefined) out.sessionDisabled = this.sessionOff.get(sessionId)?.has(record.id) ?? false;
    return out;
  }

  list(sessionId?: string): McpServerInfo[] {
    return this.opts.store.mcpServers.list().map((r) => this.info(r, sessionId));
  }

  /** Starts the server unless it runs or is starting; resolves when it is connected or failed. */
  start(id: string, sessionId: string | null = null): Promise<void> {
    const s = this.state(id);
    if (s.starting) return s.starting;
    if (s.status === 'connected' || this.disposed) return Promise.resolve();
    const record = this.opts.store.mcpServers.get(id);
    if (!record || !record.enabled) return Promise.resolve();
    if (s.timer) clearTimeout(s.timer);
    s.timer = null;
    const generation = s.generation;
    s.status = 'starting';
    s.error = undefined;
    s.starting = this.connect(record, s, generation, sessionId).finally(() => {
      if (s.generation === generation) s.starting = null;
    });
    return s.starting;
  }

  private async connect(record: McpServerRecord, s: ServerState, generation: number, sessionId: string | null) {
    let conn: McpConnection | null = null;
    try {
      const secrets = this.opts.store.mcpServers.secrets(record.id);
      conn = new McpConnection(
        { record, secrets, cwd: this.opts.workingFolder?.(sessionId) ?? process.cwd() },
        {
          onUnexpectedClose: (reason) => this.crashed(record.id, generation, reason),
          onToolsChanged: (tools) => {
            if (s.generation !== generation || s.status !== 'connected') return;
            s.tools = tools;
            this.changed();
          },
        },
      );
      const tools = await conn.start(this.startTimeoutMs);
      if (s.generation !== generation || this.disposed) {
        await conn.stop();
        return;
      }
      Object.assign(s, { status: 'connected', tools, conn, connectedAt: this.now(), error: undefined });
      this.changed();
    } catch (err) {
      if (s.generation !== generation) return;
      Object.assign(s, { status: 'error', tools: [], conn: null, error: (err as Error).message });
      this.changed();
    }
  }

  private crashed(id: string, generation: number, reason: string): void {
    const s = this.state(id);
    if (s.generation !== generation || this.disposed) return;
    if (this.now() - s.connectedAt > STABLE_MS) s.crashes = 0;
    s.crashes++;
    Object.assign(s, { status: 'error', tools: [], conn: null, error: reason });
    this.changed();
    if (s.crashes > this.backoff.maxAttempts) return;
    const delay = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** (s.crashes - 1));
    s.timer = setTimeout(() => {
      s.timer = null;
      if (s.generation === generation) void this.start(id);
    }, delay);
    s.timer.unref?.();
  }

  /** Stops the server's process or session; a pending start or restart is forgotten. */
  async stop(id: string): Promise<void> {
    const s = this.states.get(id);
    if (!s) return;
    s.generation++;
    if (s.timer) clearTimeout(s.timer);
    const conn = s.conn;
    Object.assign(s, { status: 'stopped', tools: [], conn: null, starting: null, timer: null, error: undefined });
    this.changed();
    await conn?.stop();
  }

  /** By the user: a fresh start with the backoff count reset. */
  async restart(id: string): Promise<void> {
    await this.stop(id);
    this.state(id).crashes = 0;
    await this.start(id);
  }

  /** After an edit: the old process goes; an enabled server comes back if it ran or starts at launch. */
  async reconfigured(id: string): Promise<void> {
    const was = this.states.get(id)?.status;
    await this.stop(id);
    const r = this.opts.store.mcpServers.get(id);
    if (r?.enabled && (r.startup === 'launch' || was === 'connected' || was === 'starting' || was === 'error'))
      void this.start(id);
  }

  async removed(id: string): Promise<void> {
    await this.stop(id);
    this.states.delete(id);
    for (const off of this.sessionOff.values()) off.delete(id);
  }

  /** App start: the servers set to start at launch, in the background. */
  startAtLaunch(): void {
    for (const r of this.opts.store.mcpServers.list()) if (r.enabled && r.startup === 'launch') void this.start(r.id);
  }

  /**
   * Before a turn: start the enabled servers this session uses that never ran. Each start is
   * bounded by the start timeout; a failure leaves that server out of the turn.
   */
  async prepareTurn(sessionId: string): Promise<void> {
    const off = this.sessionOff.get(sessionId);
    const pending = this.opts.store.mcpServers
      .list()
      .filter((r) => r.enabled && !off?.has(r.id))
      .filter((r) => {
        const s = this.states.get(r.id);
        return !s || s.status === 'stopped' || s.status === 'starting';
      })
      .map((r) => this.start(r.id, sessionId));
    await Promise.all(pending);
  }

  setSessionDisabled(sessionId: string, ids: string[], disabled: boolean): string[] {
    let off = this.sessionOff.get(sessionId);
    if (!off) this.sessionOff.set(sessionId, (off = new Set()));
    for (const id of ids) {
      if (disabled) off.add(id);
      else off.delete(id);
    }
    this.changed();
    return [...off];
  }

  /** Connected servers whose tools this session sees. */
  private liveFor(sessionId: string): { record: McpServerRecord; state: ServerState }[] {
    const off = this.sessionOff.get(sessionId);
    const out: { record: McpServerRecord; state: ServerState }[] = [];
    for (const record of this.opts.store.mcpServers.list()) {
      const state = this.states.get(record.id);
      if (record.enabled && state?.status === 'connected' && state.conn && !off?.has(record.id))
        out.push({ record, state });
    }
    return out;
  }

  /** The built-in tools plus this session's MCP tools; the same object while nothing changed. */
  registry(base: readonly ToolDefinition[], sessionId: string): ToolRegistry {
    const key = `${this.version}\u0000${[...(this.sessionOff.get(sessionId) ?? [])].sort().join(',')}`;
    const hit = this.registries.get(key);
    if (hit) return hit;
    const defs: ToolDefinition[] = [...base];
    for (const { record, state } of this.liveFor(sessionId)) {
      const conn = state.conn!;
      const source = {
        serverId: record.id,
        serverName: record.name,
        autoApprove: record.autoApprove,
        call: (tool: string, args: Record<string, unknown>, o: { signal: AbortSignal; timeoutMs: number }) =>
          conn.call(tool, args, o),
      };
      for (const t of state.tools) defs.push(mcpToolDefinition(source, t) as ToolDefinition);
    }
    const reg = new ToolRegistry(defs);
    this.registries.set(key, reg);
    return reg;
  }

  /** How many servers contribute tools to this session (the meter's "M servers"). */
  serverCount(sessionId: string): number {
    return this.liveFor(sessionId).filter((x) => x.state.tools.length > 0).length;
  }

  /** The process of a connected stdio server (diagnostics and tests). */
  pidOf(id: string): number | null {
    return this.states.get(id)?.conn?.pid ?? null;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.states.keys()].map((id) => this.stop(id)));
  }
}
