import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerRecord } from '@threadline/store';
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import { mcpEnv, withoutSocketEnv } from '../process/childEnv';
import { machineNetworkEnv } from './networkEnv';
import { isDownloadLine, isRunnerProgress, stageEnv, type McpStartStage } from './startStages';
import { runInput, sandboxReadOnlyPaths, wrapCommand } from '../sandbox';
import type { SandboxRun } from '../sandbox/service';

/** What a server is started with: its stored config and the decrypted env values / headers. */
export interface McpLaunch {
  record: McpServerRecord;
  secrets: { env: Record<string, string>; headers: Record<string, string> };
  /** The stdio child's folder: the configured one, else a neutral one of its own (never a session's). */
  cwd: string;
  /** Set when the stdio child runs in the OS sandbox. */
  sandbox?: McpSandbox;
}

/** A stdio server's sandbox: the command's, plus a cache folder of its own (null: none could be made). */
export interface McpSandbox extends SandboxRun {
  cacheDir: string | null;
}

/**
 * The program as the OS would find it (bwrap would only say "execvp … No such file" from inside):
 * a missing one fails here, like an unsandboxed spawn, with ENOENT.
 */
function findCommand(command: string, cwd: string, searchPath: string): string {
  const candidates = command.includes('/')
    ? [path.resolve(cwd, command)]
    : searchPath
        .split(path.delimiter)
        .filter((d) => d !== '')
        .map((d) => path.join(d, command));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // next
    }
  }
  throw Object.assign(new Error(`spawn ${command} ENOENT`), { code: 'ENOENT' });
}

/**
 * The stdio child in the sandbox: its folder writable (protected paths read-only), network on,
 * and npm/uv/pip pointed at the server's own cache folder, so what it downloads cannot land in
 * the user's caches (where the user's own `npx` would run it later).
 */
export function sandboxedStdio(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  sandbox: McpSandbox,
): { command: string; args: string[]; env: Record<string, string> } {
  const caches: Record<string, string> =
    sandbox.cacheDir !== null
      ? {
          npm_config_cache: path.join(sandbox.cacheDir, 'npm'),
          XDG_CACHE_HOME: sandbox.cacheDir,
          UV_CACHE_DIR: path.join(sandbox.cacheDir, 'uv'),
        }
      : {};
  const program = findCommand(command, cwd, env.PATH ?? '');
  const w = wrapCommand(sandbox.info, {
    command: program,
    args,
    cwd,
    folder: cwd,
    readOnlyInside: sandboxReadOnlyPaths(cwd),
    pathDirs: (env.PATH ?? '').split(path.delimiter),
    // The server's program and the script it was configured with (a package under /tmp) are seen.
    programs: [program, ...args],
    network: true,
    ...runInput(sandbox, cwd),
    ...(sandbox.cacheDir !== null ? { writable: [sandbox.cacheDir] } : {}),
  });
  return { command: w.command, args: w.args, env: { ...withoutSocketEnv(env), ...sandbox.env, ...caches, ...w.env } };
}

/**
 * The folder and environment of a stdio server's child process: the folder given (created when
 * missing), and an allow-list of this process's environment (the core set, the machine's
 * certificate and proxy settings, the names the user added for this server, `record.envAllow`)
 * with what the user configured for it on top.
 */
export function mcpChildProcess(
  configuredEnv: Record<string, string>,
  cwd: string,
  envAllow: readonly string[] = [],
): { cwd: string; env: Record<string, string> } {
  mkdirSync(cwd, { recursive: true });
  return { cwd, env: { ...machineNetworkEnv(process.env), ...mcpEnv(process.env, envAllow), ...configuredEnv } };
}

const STDERR_TAIL_BYTES = 4000;
const STDERR_TAIL_LINES = 12;

/**
 * The last lines a server wrote to stderr: what explains a failure. A package runner's own
 * progress (npm's http log, uv's "Downloading…") is not kept; `onDownload` hears a download.
 */
export class StderrTail {
  private buf = '';
  private partial = '';
  constructor(private readonly onDownload: () => void = () => undefined) {}
  push(chunk: Buffer | string): void {
    const lines = (this.partial + chunk.toString()).split('\n');
    this.partial = (lines.pop() ?? '').slice(-STDERR_TAIL_BYTES);
    for (const line of lines) {
      if (isDownloadLine(line)) this.onDownload();
      if (!isRunnerProgress(line)) this.buf = `${this.buf}${line}\n`.slice(-STDERR_TAIL_BYTES);
    }
  }
  text(): string {
    const all = this.partial === '' || isRunnerProgress(this.partial) ? this.buf : `${this.buf}${this.partial}`;
    return all.trimEnd().split('\n').slice(-STDERR_TAIL_LINES).join('\n').trim();
  }
}

export interface ConnectionEvents {
  /** The server went away without stop() being called (crash, killed, connection lost). */
  onUnexpectedClose: (reason: string) => void;
  /** The server said its tools changed; the SDK fetched the new list. */
  onToolsChanged: (tools: Tool[]) => void;
  /** The start went on to another stage (downloading the package, listing the tools). */
  onStage?: (stage: McpStartStage) => void;
}

/** One live MCP session with a server over the SDK's own transports. */
export class McpConnection {
  readonly stderr: StderrTail;
  /** The start's stage, for the message of one that takes too long. */
  private stage: McpStartStage = 'starting';
  private client: Client | null = null;
  private stopping = false;
  /** The client while it connects: stop() must end a start in progress too (a child being spawned). */
  private connecting: Client | null = null;
  private lastError: string | null = null;
  private stdio: StdioClientTransport | null = null;

  constructor(
    private readonly launch: McpLaunch,
    private readonly events: ConnectionEvents,
  ) {
    this.stderr = new StderrTail(() => this.enter('downloading'));
  }

  private enter(stage: McpStartStage): void {
    if (this.stage === stage || this.client) return;
    this.stage = stage;
    this.events.onStage?.(stage);
  }

  private transport(): Transport {
    const { record, secrets, cwd } = this.launch;
    if (record.transport === 'http') {
      return new StreamableHTTPClientTransport(new URL(record.url ?? ''), {
        requestInit: { headers: secrets.headers },
      });
    }
    const child = mcpChildProcess(secrets.env, cwd, record.envAllow);
    // What lets the start say it is downloading (npm's fetch log on stderr); the user's own wins.
    child.env = { ...stageEnv(record.command ?? ''), ...child.env };
    const { sandbox } = this.launch;
    const run = sandbox
      ? sandboxedStdio(record.command ?? '', record.args, child.cwd, child.env, sandbox)
      : { command: record.command ?? '', args: record.args, env: child.env };
    const t = new StdioClientTransport({
      command: run.command,
      args: run.args,
      env: run.env,
      cwd: child.cwd,
      stderr: 'pipe',
    });
    t.stderr?.on('data', (d: Buffer) => this.stderr.push(d));
    this.stdio = t;
    return t;
  }

  /** Connects and lists the tools; throws one sentence (with the stderr tail) on failure. */
  async start(timeoutMs: number): Promise<Tool[]> {
    const client = new Client(
      { name: 'threadline', version: '0.1.0' },
      {
        capabilities: {},
        // Only for servers that announce tools.listChanged; the SDK refetches the list itself.
        listChanged: {
          tools: {
            onChanged: (err, tools) => {
              if (!err && tools && this.client === client) this.events.onToolsChanged(tools);
            },
          },
        },
      },
    );
    let transport: Transport;
    try {
      transport = this.transport();
    } catch (err) {
      // A sandboxed command that is not there fails before any spawn: the same sentence.
      throw new Error(startFailure(this.launch.record, err));
    }
    client.onerror = (err) => {
      this.lastError = err.message;
    };
    client.onclose = () => {
      const was = this.client;
      this.client = null;
      if (was && !this.stopping)
        this.events.onUnexpectedClose(this.explain(`The server "${this.launch.record.name}" stopped unexpectedly.`));
    };
    this.connecting = client;
    try {
      await client.connect(transport, { timeout: timeoutMs });
      this.enter('listing_tools');
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      if (this.stopping) throw new Error('stopped while starting');
      this.client = client;
      return tools;
    } catch (err) {
      this.stopping = true;
      await client.close().catch(() => undefined);
      // The sentence already names the cause; only what the server itself wrote is added.
      throw new Error(this.explain(startFailure(this.launch.record, err, this.stage, timeoutMs), false));
    } finally {
      this.connecting = null;
    }
  }

  /** Calls a tool; the signal cancels the request (the SDK tells the server). */
  async call(
    name: string,
    args: Record<string, unknown>,
    opts: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    if (!this.client) throw new Error('the server is not connected');
    const r = await this.client.callTool({ name, arguments: args }, undefined, {
      signal: opts.signal,
      timeout: opts.timeoutMs,
      resetTimeoutOnProgress: true,
    });
    return r as CallToolResult;
  }

  /** The stdio child's process id (null for HTTP or before start). */
  get pid(): number | null {
    return this.stdio?.pid ?? null;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const c = this.client ?? this.connecting;
    this.client = null;
    await c?.close().catch(() => undefined);
  }

  private explain(sentence: string, withTransportError = true): string {
    const tail = this.stderr.text();
    const detail = tail !== '' ? tail : withTransportError ? this.lastError : null;
    return detail ? `${sentence}\n${detail}` : sentence;
  }
}

function startFailure(record: McpServerRecord, err: unknown, stage: McpStartStage = 'starting', timeoutMs = 0): string {
  const e = err as NodeJS.ErrnoException & { code?: unknown };
  const msg = e?.message ?? String(err);
  if (record.transport === 'stdio') {
    if (e?.code === 'ENOENT' || /ENOENT/.test(msg)) return `The command "${record.command}" was not found.`;
    if (/Connection closed/i.test(msg)) return `The server "${record.name}" exited before it answered.`;
  } else {
    if (/ECONNREFUSED|fetch failed/i.test(msg) || /ECONNREFUSED/.test(String(e?.cause)))
      return `Nothing answers at ${record.url} (connection refused).`;
  }
  if (/timed out|timeout/i.test(msg)) {
    const s = Math.round(timeoutMs / 1000);
    if (stage === 'downloading')
      return `The server "${record.name}" was still downloading its package after ${s} s (its last words, if any, are below).`;
    if (stage === 'listing_tools')
      return `The server "${record.name}" started but did not list its tools within ${s} s.`;
    return `The server "${record.name}" did not answer within ${s} s.`;
  }
  return `The server "${record.name}" could not be started: ${msg}`;
}
