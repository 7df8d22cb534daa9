import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerInfo, McpServerStatus, McpToolReview } from '@threadline/protocol';
import type { SandboxService } from '../sandbox/service';
import type { McpServerRecord, Store } from '@threadline/store';
import { launchTargets } from '../workspace/protected';
import { expandHome } from '../workspace/resolve';
import { ToolRegistry } from '../tools/registry';
import type { ToolDefinition } from '../tools/types';
import { ServerInstance, type InstanceEnv } from './instance';
import { mcpToolDefinition } from './tools';

export interface McpManagerOptions {
  store: Store;
  /** How long a start (connect + list tools) may take before the server counts as failed. */
  startTimeoutMs?: number;
  /** A start through a package runner (npx, uvx…): long enough for a first download (180 s). */
  downloadTimeoutMs?: number;
  /** Restarts after a crash: base · 2^(n−1) ms, at most maxMs, maxAttempts in a row. */
  backoff?: { baseMs: number; maxMs: number; maxAttempts: number };
  /**
   * The app's data folder: a stdio server with no folder of its own runs in `<dataDir>/mcp/<id>`,
   * a neutral folder no tool may write (never a session's working folder).
   */
  dataDir: string;
  /** For `~` in a configured folder. */
  homeDir?: string;
  now?: () => number;
  /** The OS sandbox stdio servers run in (absent, or none on this machine: they run as they are). */
  sandbox?: SandboxService;
}

/** JSON with object keys sorted, so a hash does not change with the order a server sends. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** What the model reads of a tool: its name, title, description and input schema, hashed. */
export function toolHash(t: Tool): string {
  return createHash('sha256')
    .update(
      canonical({ name: t.name, title: t.title ?? null, description: t.description ?? null, input: t.inputSchema }),
    )
    .digest('hex');
}

/** Which instance's state a server shows: a live one first, then one starting, then the newest error. */
const RANK: Record<ServerInstance['status'], number> = { connected: 3, starting: 2, error: 1, stopped: 0 };

/**
 * Every configured MCP server: started lazily (or at app start), restarted with backoff after a
 * crash, stopped with the app. A stdio server runs once, in the folder the user configured or a
 * neutral one of its own: never a session's working folder, where the model can write files the
 * launcher would pick up (`python -m mod` finds `mod.py` there first). Its tools are pinned: the
 * model sees a tool only while its description and schema are the ones pinned (at the server's
 * first listing, or approved by the user since). Nothing here throws into a turn: a server that
 * fails is in `error` with its reason and offers no tools.
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
      downloadTimeoutMs: opts.downloadTimeoutMs ?? 180_000,
      backoff: opts.backoff ?? { baseMs: 1000, maxMs: 30_000, maxAttempts: 5 },
      now: opts.now ?? Date.now,
      changed: () => {
        this.version++;
        this.registries.clear();
      },
      listed: (serverId, tools) => this.pinFirstListing(serverId, tools),
      disposed: () => this.disposed,
      ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
    };
  }

  /** A stdio server's folder: the configured one, else `<dataDir>/mcp/<id>`; null for HTTP. */
  folderFor(record: McpServerRecord): string | null {
    if (record.transport !== 'stdio') return null;
    if (record.cwd) return path.resolve(expandHome(record.cwd, this.opts.homeDir ?? process.env.HOME ?? '/'));
    return path.join(this.opts.dataDir, 'mcp', record.id);
  }

  /**
   * Files and folders the configured stdio servers would execute from the file system (see
   * launchTargets): a write to one asks like any protected path.
   */
  launchTargets(): string[] {
    const out: string[] = [];
    for (const r of this.opts.store.mcpServers.list()) {
      const folder = this.folderFor(r);
      if (folder && r.command) out.push(...launchTargets(r.command, r.args, folder));
    }
    return out;
  }

  /** Trust on first use: the tools of a server's first listing are pinned as the user added it. */
  private pinFirstListing(serverId: string, tools: readonly Tool[]): void {
    try {
      if (tools.length === 0 || this.opts.store.mcpServers.pins(serverId).length > 0) return;
      this.opts.store.mcpServers.pin(serverId, tools.map(pinOf));
    } catch {
      // a removed server or a closed store: nothing pinned, its tools wait for the user
    }
  }

  /** Each tool a server lists now, with its pin state. */
  private review(serverId: string, tools: readonly Tool[]): McpToolReview[] {
    let pins: Map<string, { hash: string; description: string }>;
    try {
      pins = new Map(this.opts.store.mcpServers.pins(serverId).map((p) => [p.tool, p]));
    } catch {
      pins = new Map();
    }
    return tools.map((t) => {
      const pin = pins.get(t.name);
      const state = !pin ? 'new' : pin.hash === toolHash(t) ? 'pinned' : 'changed';
      const out: McpToolReview = {
        name: t.name,
        description: t.description ?? t.title ?? '',
        inputSchema: JSON.stringify(t.inputSchema, null, 2),
        state,
      };
      if (state === 'changed' && pin) out.pinnedDescription = pin.description;
      return out;
    });
  }

  /** The user approves what the server lists now: every tool pinned as it is. */
  approveTools(id: string): void {
    const tools = this.shown(id)?.tools ?? [];
    this.opts.store.mcpServers.pin(id, tools.map(pinOf));
    this.env.changed();
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
      tools: [],
    };
    if (status === 'connected' && s) {
      const review = this.review(record.id, s.tools);
      out.tools = review.filter((t) => t.state === 'pinned').map((t) => t.name);
      out.review = review;
      out.pendingReview = review.length - out.tools.length;
    }
    if (record.transport === 'stdio') {
      out.command = record.command ?? '';
      out.args = record.args;
      out.env = record.envNames.map((name) => ({ name, set: true }));
      out.cwd = record.cwd;
      out.runFolder = this.folderFor(record) ?? undefined;
      out.envAllow = record.envAllow;
    } else {
      out.url = record.url ?? '';
      out.headers = record.headerNames.map((name) => ({ name, set: true }));
    }
    if (status === 'error' && s?.error) out.error = s.error;
    if (status === 'starting' && s) out.stage = s.stage;
    if (sessionId !== undefined) out.sessionDisabled = this.sessionOff.get(sessionId)?.has(record.id) ?? false;
    return out;
  }

  list(sessionId?: string): McpServerInfo[] {
    return this.opts.store.mcpServers.list().map((r) => this.info(r, sessionId));
  }

  /** Starts the server (in its own folder) unless it runs; resolves when connected or failed. */
  start(id: string): Promise<void> {
    const record = this.opts.store.mcpServers.get(id);
    if (!record || !record.enabled || this.disposed) return Promise.resolve();
    return this.instance(id, this.folderFor(record)).start();
  }

  /** Stops every copy of the server. */
  async stop(id: string): Promise<void> {
    await Promise.all(this.instancesOf(id).map((i) => i.stop()));
  }

  /** By the user: a fresh start with the backoff count reset. */
  async restart(id: string): Promise<void> {
    await this.stop(id);
    const record = this.opts.store.mcpServers.get(id);
    if (!record) return;
    const i = this.instance(id, this.folderFor(record));
    i.resetBackoff();
    await i.start();
  }

  /** After an edit: the old process goes (its folder may have changed); it comes back if it ran or starts at launch. */
  async reconfigured(id: string): Promise<void> {
    const wasActive = this.instancesOf(id).some((i) => i.status !== 'stopped');
    await this.stop(id);
    this.forget(id);
    const r = this.opts.store.mcpServers.get(id);
    if (!r?.enabled) return;
    if (wasActive || r.startup === 'launch') void this.instance(id, this.folderFor(r)).start();
  }

  private forget(id: string): void {
    for (const [key, i] of this.instances) if (i.serverId === id) this.instances.delete(key);
  }

  async removed(id: string): Promise<void> {
    await this.stop(id);
    this.forget(id);
    for (const off of this.sessionOff.values()) off.delete(id);
  }

  /** App start: the servers set to start at launch, in the background. */
  startAtLaunch(): void {
    for (const r of this.opts.store.mcpServers.list()) if (r.enabled && r.startup === 'launch') void this.start(r.id);
  }

  /**
   * Before a turn: start the enabled servers this session uses that never ran; resolves with how
   * many servers then contribute tools to the session. Each start is bounded by the start
   * timeout; a failure leaves that server out of the turn.
   */
  async prepareTurn(
    sessionId: string,
    /** The servers as the turn read them (store.turns.load), else read now. */
    records: readonly McpServerRecord[] = this.opts.store.mcpServers.list(),
  ): Promise<number> {
    const off = this.sessionOff.get(sessionId);
    const pending = records
      .filter((r) => r.enabled && !off?.has(r.id))
      .map((r) => this.instance(r.id, this.folderFor(r)))
      .filter((i) => i.status === 'stopped' || i.status === 'starting')
      .map((i) => i.start());
    await Promise.all(pending);
    // The turn's "M servers", from the same listing (serverCount reads it again).
    return this.liveFor(sessionId, records).filter((x) => x.inst.tools.length > 0).length;
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
  private liveFor(
    sessionId: string,
    records: readonly McpServerRecord[] = this.opts.store.mcpServers.list(),
  ): { record: McpServerRecord; inst: ServerInstance }[] {
    const off = this.sessionOff.get(sessionId);
    const out: { record: McpServerRecord; inst: ServerInstance }[] = [];
    for (const record of records) {
      if (!record.enabled || off?.has(record.id)) continue;
      const inst = this.instances.get(`${record.id}\u0000${this.folderFor(record) ?? ''}`);
      if (inst?.live) out.push({ record, inst });
    }
    return out;
  }

  /** The built-in tools plus this session's MCP tools; the same object while nothing changed. */
  registry(base: readonly ToolDefinition[], sessionId: string): ToolRegistry {
    const off = [...(this.sessionOff.get(sessionId) ?? [])].sort().join(',');
    const key = `${this.version}\u0000${off}`;
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
      // Only pinned tools: a new tool or a changed description waits for the user (Settings).
      const pinned = new Set(
        this.review(record.id, inst.tools)
          .filter((t) => t.state === 'pinned')
          .map((t) => t.name),
      );
      // By name: the tool list is part of every request's cached prefix, whatever order a server lists.
      const tools = [...inst.tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const t of tools) if (pinned.has(t.name)) defs.push(mcpToolDefinition(source, t) as ToolDefinition);
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

  /** How many tools of the servers this session uses wait for the user's approval. */
  pendingReview(sessionId: string): number {
    let n = 0;
    for (const { record, inst } of this.liveFor(sessionId))
      n += this.review(record.id, inst.tools).filter((t) => t.state !== 'pinned').length;
    return n;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.instances.values()].map((i) => i.stop()));
  }
}

function pinOf(t: Tool): { tool: string; hash: string; description: string } {
  return { tool: t.name, hash: toolHash(t), description: t.description ?? t.title ?? '' };
}
