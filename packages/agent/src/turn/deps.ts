import type { AppEvent, ProviderProfile, Settings } from '@threadline/protocol';
import type { Store } from '@threadline/store';
import type { Engine, ProviderClient } from '../ports';
import type { McpManager } from '../mcp/manager';
import type { ToolRegistry } from '../tools/registry';
import type { SessionRuntime } from './sessionRuntime';

/** Everything a turn step needs, passed explicitly (no module state). */
export interface TurnDeps {
  store: Store;
  engine: Engine;
  /** The built-in tools. */
  registry: ToolRegistry;
  /** What one session's turn offers: the built-in tools plus its MCP servers' tools. */
  toolsFor: (sessionId: string) => ToolRegistry;
  /** MCP servers (null: none configured in this runtime, e.g. some tests). */
  mcp: McpManager | null;
  emit: (e: AppEvent) => void;
  now: () => number;
  newId: () => string;
  cwd: string;
  /** The user's home folder, resolved (for `~`, the default folder and credential places). */
  homeDir: string;
  /** The app's data folder and database file, resolved: no tool may touch them. */
  dataDir: string;
  dbFile: string;
  platform: NodeJS.Platform;
  fileExists: (p: string) => boolean;
  shellTimeoutMs: number;
  loginShell: boolean;
  /** Same tool call with the same arguments this many times in a row stops the turn. */
  doomLoopLimit: number;
  /** Model calls per turn before the turn stops (a runaway agent). */
  maxModelCalls: number;
  runtime: (sessionId: string) => SessionRuntime;
  /** The active profile and its client, or an AppError when none is configured. */
  provider: () => { profile: ProviderProfile; client: ProviderClient };
}

export interface TurnScope {
  deps: TurnDeps;
  sessionId: string;
  settings: Settings;
  profile: ProviderProfile;
  client: ProviderClient;
  signal: AbortSignal;
}
