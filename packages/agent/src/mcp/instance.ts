import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SandboxService } from '../sandbox/service';
import type { McpSandbox } from './connection';
import type { McpServerStatus, McpStartStage } from '@threadline/protocol';
import type { Store } from '@threadline/store';
import { McpConnection } from './connection';
import { isPackageRunner } from './startStages';

export interface InstanceEnv {
  store: Store;
  startTimeoutMs: number;
  /** A start through a package runner (npx, uvx…), which may download the package first. */
  downloadTimeoutMs: number;
  /** Restarts after a crash: base · 2^(n−1) ms, at most maxMs, maxAttempts in a row. */
  backoff: { baseMs: number; maxMs: number; maxAttempts: number };
  now: () => number;
  /** The tool set (or a status) changed: registries are rebuilt. */
  changed: () => void;
  /** A server listed its tools (at connect or after a change), before the registries are rebuilt. */
  listed: (serverId: string, tools: Tool[]) => void;
  disposed: () => boolean;
  /** The OS sandbox a stdio server runs in, when this machine has one. */
  sandbox?: SandboxService;
}

/** A connection that lived this long was fine: its next crash starts the backoff over. */
const STABLE_MS = 60_000;

/**
 * One running copy of a server (a stdio server in its own folder, see McpManager.folderFor). Starts, crash restarts with backoff, stop; never throws into a turn.
 */
export class ServerInstance {
  status: Exclude<McpServerStatus, 'disabled'> = 'stopped';
  /** While starting: how far the start got. */
  stage: McpStartStage = 'starting';
  tools: Tool[] = [];
  error: string | undefined;
  /** When the status last changed (the newest error is the one shown). */
  since = 0;
  private conn: McpConnection | null = null;
  /** The connection being started, so stop() ends it too. */
  private pending: McpConnection | null = null;
  private starting: Promise<void> | null = null;
  private crashes = 0;
  private connectedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Bumped by stop: a start or crash of an older generation is ignored. */
  private generation = 0;

  constructor(
    readonly serverId: string,
    readonly folder: string | null,
    private readonly env: InstanceEnv,
  ) {}

  private set(status: ServerInstance['status'], patch: { tools?: Tool[]; error?: string } = {}): void {
    if (status === 'connected') this.env.listed(this.serverId, patch.tools ?? []);
    this.status = status;
    this.tools = patch.tools ?? [];
    this.error = patch.error;
    this.since = this.env.now();
    this.env.changed();
  }

  /**
   * A stdio server runs in the sandbox as commands do, with the network on (most servers are
   * clients of some service) and a package-manager cache of its own (npx, uvx), never the user's.
   */
  private async sandboxRun(serverId: string): Promise<McpSandbox | null> {
    const service = this.env.sandbox;
    if (!service) return null;
    // Its network is the machine's (most servers are clients of a service), not the proxy's.
    const run = await service.run(`mcp-${serverId}`, { domains: null, homeFolders: [] });
    if (run.info.kind === 'none') return null;
    return { ...run, cacheDir: service.cacheDirFor(serverId) };
  }

  /** Starts unless it runs or is starting; resolves when connected or failed. */
  start(): Promise<void> {
    if (this.starting) return this.starting;
    if (this.status === 'connected' || this.env.disposed()) return Promise.resolve();
    const record = this.env.store.mcpServers.get(this.serverId);
    if (!record || !record.enabled) return Promise.resolve();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const generation = this.generation;
    this.stage = 'starting';
    this.set('starting');
    const run = (async () => {
      let conn: McpConnection | null = null;
      try {
        const sandbox = record.transport === 'stdio' ? await this.sandboxRun(record.id) : null;
        conn = new McpConnection(
          {
            record,
            secrets: this.env.store.mcpServers.secrets(record.id),
            cwd: this.folder ?? process.cwd(),
            ...(sandbox ? { sandbox } : {}),
          },
          {
            onUnexpectedClose: (reason) => this.crashed(generation, reason),
            onToolsChanged: (tools) => {
              if (this.generation === generation && this.status === 'connected') this.set('connected', { tools });
            },
            onStage: (stage) => {
              if (this.generation === generation && this.status === 'starting') this.stage = stage;
            },
          },
        );
        this.pending = conn;
        const downloads = record.transport === 'stdio' && isPackageRunner(record.command ?? '');
        const tools = await conn.start(downloads ? this.env.downloadTimeoutMs : this.env.startTimeoutMs);
        if (this.generation !== generation || this.env.disposed()) {
          await conn.stop();
          return;
        }
        this.conn = conn;
        this.connectedAt = this.env.now();
        this.set('connected', { tools });
      } catch (err) {
        if (this.generation === generation) this.set('error', { error: (err as Error).message });
      } finally {
        if (this.pending === conn) this.pending = null;
      }
    })();
    this.starting = run.finally(() => {
      if (this.generation === generation) this.starting = null;
    });
    return this.starting;
  }

  private crashed(generation: number, reason: string): void {
    if (this.generation !== generation || this.env.disposed()) return;
    if (this.env.now() - this.connectedAt > STABLE_MS) this.crashes = 0;
    this.crashes++;
    this.conn = null;
    const { baseMs, maxMs, maxAttempts } = this.env.backoff;
    const giveUp = this.crashes > maxAttempts;
    const delay = Math.min(maxMs, baseMs * 2 ** (this.crashes - 1));
    // The first line says what happens next; the server's own last words follow it.
    const note = giveUp
      ? `It stopped ${this.crashes} times in a row and is not restarted again; restart it when it is fixed.`
      : `Restarting in ${Math.max(1, Math.round(delay / 1000))} s.`;
    const [first, ...rest] = reason.split('\n');
    this.set('error', { error: [`${first} ${note}`, ...rest].join('\n') });
    if (giveUp) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.generation === generation) void this.start();
    }, delay);
    this.timer.unref?.();
  }

  /** Stops the process or session; a pending start or restart is forgotten. */
  async stop(): Promise<void> {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.starting = null;
    const conns = [this.conn, this.pending];
    this.conn = null;
    this.pending = null;
    this.set('stopped');
    await Promise.all(conns.map((c) => c?.stop()));
  }

  /** A restart by the user starts the crash count over. */
  resetBackoff(): void {
    this.crashes = 0;
  }

  get live(): boolean {
    return this.status === 'connected' && this.conn !== null;
  }

  get pid(): number | null {
    return this.conn?.pid ?? null;
  }

  call(
    tool: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    if (!this.conn) return Promise.reject(new Error('the server is not connected'));
    return this.conn.call(tool, args, opts);
  }
}
