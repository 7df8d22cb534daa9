import type { McpServerInfo, McpServerStatus } from '@threadline/protocol';
import type { McpServerRecord, Store } from '@threadline/store';
import { ToolRegistry } from '../tools/registry';
import type { ToolDefinition } from '../tools/types';
import { ServerInstance, type InstanceEnv } from './instance';
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

/** Which instance's state a server shows: a live one first, then one starting, then the newest error. */
const RANK: Record<ServerInstance['status'], number> = { connected: 3, starting: 2, error: 1, stopped: 0 };

/**
 * Every configured MCP server: started lazily (or at app start), restarted with backoff after a
 * crash, stopped with the app. A stdio server runs once per session working folder (its child's
 * cwd is that folder); an HTTP server once. Nothing here throws into a turn: a server that fails
 * is in `error` with its reason and offers no tools.
 */
export class McpManager {
  private readonly instances = new Map<string, ServerInstance>();
  private readonly sessionOff = new Map<string, Set<string>>();
  private readonly registries = new Map<string, ToolRegistry>();
  private version = 0;
  private disposed = false;
  private readonly env: InstanceEnv;

  constructor(private readonly opts: McpManagerOptions) {
    this.env = {
      store: opts.store,
      startTimeoutMs: opts.startTimeoutMs ?? 30_000,
      backoff: opts.backoff ?? { baseMs: 1000, maxMs: 30_000, maxAttempts: 5 },
      now: opts.now ?? Date.now,
      changed: () => {
        this.version++;
        this.registries.clear();
      },
      disposed: () => this.disposed,
    };
  }

  private folderFor(record: McpServerRecord, sessionId: string | null): string | null {
    return record.transport === 'stdio' ? (this.opts.workingFolder?.(sessionId) ?? null) : null;
  }

  private instance(id: string, folder: string | null): ServerInstance {
    const key = `${id}\u0000${folder ?? ''}`;
    let i = this.instances.get(key);
    if (!i) this.instances.set(key, (i = new ServerInstance(id, folder, this.env)));
    return i;
  }

  private instancesOf(id: string): ServerInstance[] {
    return [...this.instances.values()].filter((i) => i.serverId === id);
  }

  /** The state shown for a server: its best instance (see RANK). */
  private shown(id: string): ServerInstance | null {
    let best: ServerInstance | null = null;
    for (const i of this.instancesOf(id))
      if (!best || RANK[i.status] > RANK[best.status] || (i.status === best.status && i.since > best.since)) best = i;
    return best;
  }

  info(record: McpServerRecord, sessionId?: string): McpServerInfo {
    const s = this.shown(record.id);
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

  /** Starts the server (in the session's folder) unless it runs; resolves when connected or failed. */
  start(id: string, sessionId: string | null = null): Promise<void> {
    const record = this.opts.store.mcpServers.get(id);
    if (!record || !record.enabled || this.disposed) return Promise.resolve();
    return this.instance(id, this.folderFor(record, sessionId)).start();
  }

  /** Stops every copy of the server. */
  async stop(id: string): Promise<void> {
    await Promise.all(this.instancesOf(id).map((i) => i.stop()));
  }

  /** By the user: fresh starts (in the folders it ran in) with the backoff count reset. */
  async restart(id: string): Promise<void> {
    const folders = this.instancesOf(id).map((i) => i.folder);
    await this.stop(id);
    const starts = (folders.length > 0 ? folders : [null]).map((f) => {
      const i = this.instance(id, f);
      i.resetBackoff();
      return i.start();
    });
    await Promise.all(starts);
  }

  /** After an edit: the old processes go; an enabled server comes back where it ran, or at launch. */
  async reconfigured(id: string): Promise<void> {
    const active = this.instancesOf(id)
      .filter((i) => i.status !== 'stopped')
      .map((i) => i.folder);
    await this.stop(id);
    const r = this.opts.store.mcpServers.get(id);
    if (!r?.enabled) return;
    const folders = new Set(r.startup === 'launch' ? [...active, null] : active);
    for (const f of folders) void this.instance(id, f).start();
  }

  async removed(id: string): Promise<void> {
    await this.stop(id);
    for (const [key, i] of this.instances) if (i.serverId === id) this.instances.delete(key);
    for (const off of this.sessionOff.values()) off.delete(id);
  }

  /** App start: the servers set to start at launch, in the background. */
  startAtLaunch(): void {
    for (const r of this.opts.store.mcpServers.list()) if (r.enabled && r.startup === 'launch') void this.start(r.id);
  }

  /**
   * Before a turn: start the enabled servers this session uses that never ran (in its folder).
   * Each start is bounded by the start timeout; a failure leaves that server out of the turn.
   */
  async prepareTurn(sessionId: string): Promise<void> {
    const off = this.sessionOff.get(sessionId);
    const pending = this.opts.store.mcpServers
      .list()
      .filter((r) => r.enabled && !off?.has(r.id))
      .map((r) => this.instance(r.id, this.folderFor(r, sessionId)))
      .filter((i) => i.status === 'stopped' || i.status === 'starting')
      .map((i) => i.start());
    await Promise.all(pending);
  }

  setSessionDisabled(sessionId: string, ids: string[], disabled: boolean): string[] {
    let off = this.sessionOff.get(sessionId);
    if (!off) this.sessionOff.set(sessionId, (off = new Set()));
    for (const id of ids) {
      if (disabled) off.add(id);
      else off.delete(id);
    }
    this.env.changed();
    return [...off];
  }

  /** Live instances whose tools this session sees. */
  private liveFor(sessionId: string): { record: McpServerRecord; inst: ServerInstance }[] {
    const off = this.sessionOff.get(sessionId);
    const out: { record: McpServerRecord; inst: ServerInstance }[] = [];
    for (const record of this.opts.store.mcpServers.list()) {
      if (!record.enabled || off?.has(record.id)) continue;
      const inst = this.instances.get(`${record.id}\u0000${this.folderFor(record, sessionId) ?? ''}`);
      if (inst?.live) out.push({ record, inst });
    }
    return out;
  }

  /** The built-in tools plus this session's MCP tools; the same object while nothing changed. */
  registry(base: readonly ToolDefinition[], sessionId: string): ToolRegistry {
    const off = [...(this.sessionOff.get(sessionId) ?? [])].sort().join(',');
    const key = `${this.version}\u0000${this.opts.workingFolder?.(sessionId) ?? ''}\u0000${off}`;
    const hit = this.registries.get(key);
    if (hit) return hit;
    const defs: ToolDefinition[] = [...base];
    for (const { record, inst } of this.liveFor(sessionId)) {
      const source = {
        serverId: record.id,
        serverName: record.name,
        autoApprove: record.autoApprove,
        call: inst.call.bind(inst),
      };
      // By name: the tool list is part of every request's cached prefix, whatever order a server lists.
      const tools = [...inst.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const t of tools) defs.push(mcpToolDefinition(source, t) as ToolDefinition);
    }
    const reg = new ToolRegistry(defs);
    this.registries.set(key, reg);
    return reg;
  }

  /** How many servers contribute tools to this session (the meter's "M servers"). */
  serverCount(sessionId: string): number {
    return this.liveFor(sessionId).filter((x) => x.inst.tools.length > 0).length;
  }

  /** The process of a connected stdio server (diagnostics and tests). */
  pidOf(id: string): number | null {
    return this.instancesOf(id).find((i) => i.live)?.pid ?? null;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.instances.values()].map((i) => i.stop()));
  }
}
