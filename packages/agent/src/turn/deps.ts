import type { AppEvent } from '@threadline/protocol';
import type { Store } from '@threadline/store';
import type { McpManager } from '../mcp/manager';
import type { SandboxService } from '../sandbox/service';
import type { CheckpointService } from '../checkpoints/service';
import type { HeldFiles } from '../sandbox/heldFiles';
import type { ToolRegistry } from '../tools/registry';
import type { ProjectInstructionsCache } from '../session/instructions';
import type { Session } from '../session/session';
import type { SessionSnapshots } from '../session/snapshot';
import type { Workspace } from '../workspace/types';
import type { ProjectMemory } from '../projectMemory/service';

export type { Workspace };

/** How tools run their processes. */
export interface ProcessOptions {
  shellTimeoutMs: number;
  loginShell: boolean;
  /** The user's login environment, read once outside the sandbox (process/loginEnv.ts). */
  loginEnv: () => Promise<NodeJS.ProcessEnv>;
}

/** When a turn stops on its own. */
export interface TurnLimits {
  /** Same tool call with the same arguments this many times in a row stops the turn. */
  doomLoopLimit: number;
  /** Model calls per turn before the turn stops (a runaway agent). */
  maxModelCalls: number;
}

/** What a turn step needs, passed explicitly (no module state); the groups go on to the functions that use them. */
export interface TurnDeps {
  store: Store;
  /** Open sessions in memory; every write of messages, compactions and memory goes through it. */
  sessions: SessionSnapshots;
  /** What one session's turn offers: the built-in tools plus its MCP servers' tools. */
  toolsFor: (sessionId: string) => ToolRegistry;
  /** MCP servers (null: none configured in this runtime, e.g. some tests). */
  mcp: McpManager | null;
  /** Checkpoints of the working folder (null: none in this runtime, e.g. some tests). */
  checkpoints?: CheckpointService | null;
  emit: (e: AppEvent) => void;
  now: () => number;
  newId: () => string;
  workspace: Workspace;
  process: ProcessOptions;
  limits: TurnLimits;
  sessionState: (sessionId: string) => Session;
  /** The OS sandbox commands run in under the `sandboxed` policy (absent: none, such calls ask). */
  sandbox?: SandboxService;
  /** Files sandboxed commands left that make code run later, held for the user (absent: some tests). */
  held?: HeldFiles | null;
  /** The project instruction files found so far, by path (read again when they change). */
  instructions: ProjectInstructionsCache;
  /** Project memory: what sessions in a folder verified, kept for the next ones there. */
  projects: ProjectMemory;
}
