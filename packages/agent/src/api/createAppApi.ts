import { modelRoutes } from './modelRoutes';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { AppApi, AppEvent } from '@threadline/protocol';
import type { Store } from '@threadline/store';
import { McpManager, type McpManagerOptions } from '../mcp/manager';
import { ProjectInstructionsCache } from '../session/instructions';
import { ToolRegistry } from '../tools/registry';
import { delegateTool } from '../tools/delegate';
import { markInterruptedHelpers } from '../helpers/interrupted';
import type { TurnDeps } from '../turn/deps';
import { Sessions } from '../session/session';
import { SessionSnapshots, type SnapshotOptions } from '../session/snapshot';
import { resolveReal } from '../workspace/resolve';
import { reapLeftovers } from '../process/reap';
import { endIdleWorkers } from '../worker/run';

/** How long an attachment no message refers to is kept (from its last upload) before start-up deletes it. */
const UNSENT_ATTACHMENT_MS = 24 * 60 * 60_000;
import { SandboxService } from '../sandbox/service';
import { loginEnv } from '../process/loginEnv';
import type { DetectOptions } from '../sandbox/detect';
import { defaultProviderFactory, type ApiContext, type ProviderFactory } from './apiContext';
import { chatRoutes } from './chatRoutes';
import { branchRoutes } from './branchRoutes';
import { compactionRoutes } from './compactionRoutes';
import { configRoutes } from './configRoutes';
import { guardRoutes } from './errors';
import { instructionsRoutes } from './instructionsRoutes';
import { mcpRoutes } from './mcpRoutes';
import { rulesRoutes } from './rulesRoutes';
import { sandboxRoutes } from './sandboxRoutes';
import { checkpointRoutes } from './checkpointRoutes';
import { heldRoutes } from './heldRoutes';
import { HeldFiles } from '../sandbox/heldFiles';
import { CheckpointService, appFiles, type CheckpointOptions } from '../checkpoints/service';
import { sessionRoutes } from './sessionRoutes';
import { usageRoutes } from './usageRoutes';
import { projectRoutes } from './projectRoutes';
import { ProjectMemory } from '../projectMemory/service';
import { helperRoutes } from './helperRoutes';

export interface CreateAppApiOptions {
  store: Store;
  /** Builds the client for a profile; default: the openai-SDK client of ./provider. */
  providerFactory?: ProviderFactory;
  clock?: () => number;
  newId?: () => string;
  /** Where the app keeps its files (the database lives here too). */
  dataDir: string;
  /** The process's working directory (tools run in each session's working folder instead). */
  cwd: string;
  /** The user's home folder (default os.homedir()): `~`, the default ~/Threadline, credential places. */
  homeDir?: string;
  platform?: NodeJS.Platform;
  fileExists?: (p: string) => boolean;
  emit: (e: AppEvent) => void;
  shellTimeoutMs?: number;
  /** true (default): commands get the user's login environment, read once; false: this process's (tests). */
  loginShell?: boolean;
  tools?: ToolRegistry;
  /** Same tool call with the same arguments this many times in a row stops the turn (default 3). */
  doomLoopLimit?: number;
  maxModelCalls?: number;
  /** MCP server manager options (start timeout, crash backoff, a session's working folder). */
  mcp?: Partial<Omit<McpManagerOptions, 'store' | 'now'>>;
  /** How many open sessions stay in memory, and for how long unused (session/snapshot.ts). */
  snapshots?: SnapshotOptions;
  /** How the OS sandbox is found (tests: a PATH without bwrap, or `force: 'none'`). */
  sandbox?: DetectOptions;
  /** Checkpoints of the working folder: the git executable, the snapshot caps. */
  checkpoints?: CheckpointOptions;
}

export interface AppRuntime extends AppApi {
  /** Cancels running turns and waits for them; the store stays open (its owner closes it). */
  dispose(): Promise<void>;
  /** Resolves when the session's running turn (if any) has ended. */
  idle(sessionId: string): Promise<void>;
}

/** The one AppApi both shells expose: every route of the protocol (docs/api.md), events through `emit`. */
export function createAppApi(opts: CreateAppApiOptions): AppRuntime {
  const sessions = new Sessions();
  const emit = (e: AppEvent): void => {
    try {
      opts.emit(e);
    } catch {
      // A broken listener must never break a turn.
    }
  };
  // Every session is offered delegate; a helper's turn narrows its own tools (helpers/roles.ts).
  const registry = new ToolRegistry([...(opts.tools ?? new ToolRegistry()).list(), delegateTool]);
  const homeDir = resolveReal(opts.homeDir ?? homedir(), '/', '/');
  const dataDir = resolveReal(path.resolve(opts.dataDir), '/', '/');
  const dbFile = resolveReal(path.resolve(opts.store.file), '/', '/');
  const platform = opts.platform ?? process.platform;
  // Found at once, so the first turn's system prompt can say whether commands are sandboxed.
  const sandbox = new SandboxService({
    platform,
    homeDir,
    dataDir,
    dbFile,
    ...(opts.sandbox ? { detect: opts.sandbox } : {}),
  });
  const mcp = new McpManager({
    store: opts.store,
    sandbox,
    // A stdio server runs in its configured folder, else <data>/mcp/<id>: never a session's folder.
    dataDir,
    homeDir,
    ...opts.mcp,
  });
  const now = opts.clock ?? Date.now;
  const workspace = {
    cwd: opts.cwd,
    homeDir,
    dataDir,
    dbFile,
    platform,
    fileExists: opts.fileExists ?? existsSync,
  };
  const checkpoints = new CheckpointService(opts.store, emit, dataDir, appFiles(dataDir, dbFile), opts.checkpoints);
  const held = new HeldFiles(opts.store, emit, dataDir);
  const deps: TurnDeps = {
    store: opts.store,
    sessions: new SessionSnapshots(
      opts.store,
      now,
      opts.snapshots,
      (sessionId) => emit({ type: 'memory.updated', sessionId }),
      sessions,
    ),
    // The built-in (or a test's) tools are the base every session's registry extends.
    toolsFor: (sessionId) => mcp.registry(registry.list(), sessionId),
    mcp,
    checkpoints,
    held,
    emit,
    now,
    newId: opts.newId ?? randomUUID,
    workspace,
    process: {
      shellTimeoutMs: opts.shellTimeoutMs ?? 120_000,
      loginShell: opts.loginShell ?? true,
      // Read once, in the background from the start: the first command waits for it at most.
      loginEnv: (() => {
        const once =
          (opts.loginShell ?? true) && platform !== 'win32'
            ? loginEnv({ env: { ...process.env, HOME: homeDir } })
            : null;
        return async () => (once ? (await once).env : process.env);
      })(),
    },
    limits: { doomLoopLimit: opts.doomLoopLimit ?? 3, maxModelCalls: opts.maxModelCalls ?? 50 },
    sessionState: (id) => sessions.get(id),
    sandbox,
    instructions: new ProjectInstructionsCache(),
    projects: new ProjectMemory({ store: opts.store, emit, now, workspace }),
  };
  // Before any route runs: end what a crashed previous run left behind, and mark its turns.
  try {
    reapLeftovers(deps.store, deps.workspace.platform);
  } catch (err) {
    // A store that cannot be written now keeps the rows: the next start tries again.
    emit({ type: 'error', sessionId: null, code: 'internal', message: `Leftover tool processes: ${String(err)}` });
  }
  // Held copies of deleted sessions: gone before any command runs.
  void held
    .sweep()
    .catch((err: unknown) =>
      emit({ type: 'error', sessionId: null, code: 'internal', message: `Held files: ${String(err)}` }),
    );
  // Helpers a crash stopped: marked, and their parents told (their messages stay as stored).
  try {
    markInterruptedHelpers(deps.store);
  } catch (err) {
    emit({ type: 'error', sessionId: null, code: 'internal', message: `Interrupted helpers: ${String(err)}` });
  }
  // Files attached in a composer and never sent: gone a day after their last upload.
  try {
    deps.store.attachments.dropUnreferenced(now() - UNSENT_ATTACHMENT_MS);
  } catch (err) {
    emit({ type: 'error', sessionId: null, code: 'internal', message: `Unsent attachments: ${String(err)}` });
  }
  const ctx: ApiContext = { deps, sessions, providerFactory: opts.providerFactory ?? defaultProviderFactory };
  const routes: AppApi = guardRoutes({
    ...sessionRoutes(ctx),
    ...chatRoutes(ctx),
    ...compactionRoutes(ctx),
    ...configRoutes(ctx),
    ...branchRoutes(ctx),
    ...mcpRoutes(ctx, mcp),
    ...modelRoutes(ctx),
    ...sandboxRoutes(ctx),
    ...rulesRoutes(ctx),
    ...instructionsRoutes(ctx),
    ...checkpointRoutes(ctx, checkpoints),
    ...heldRoutes(ctx, held),
    ...usageRoutes(ctx),
    ...projectRoutes(ctx),
    ...helperRoutes(ctx),
  });
  mcp.startAtLaunch();
  return {
    ...routes,
    idle: async (sessionId) => {
      const rt = sessions.get(sessionId);
      await rt.running;
      await rt.background?.promise;
    },
    dispose: async () => {
      const running = sessions.all().filter((rt) => rt.running !== null);
      for (const rt of running) rt.stop();
      await Promise.all(running.map((rt) => rt.running));
      const background = sessions.all().flatMap((rt) => (rt.background ? [rt.background] : []));
      for (const b of background) b.abort.abort();
      await Promise.all(background.map((b) => b.promise));
      // The servers' processes go with the app.
      await mcp.dispose();
      deps.sessions.dispose();
      sandbox.dispose();
      await endIdleWorkers();
    },
  };
}
