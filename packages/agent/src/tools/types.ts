import type { ToolDiff } from '@threadline/protocol';
import type { z } from 'zod';
import type { SandboxRun } from '../sandbox/service';
import type { Reach } from '../workspace/reach';

/** What a tool needs from the runtime; nothing global, so tests can run tools directly. */
export interface ToolContext {
  sessionId: string;
  cwd: string;
  platform: NodeJS.Platform;
  /** Aborted by chat.cancel: a tool must stop (and kill its processes) when it fires. */
  signal: AbortSignal;
  shellTimeoutMs: number;
  /** false: commands get this process's environment, not the user's login environment (tests). */
  loginShell?: boolean;
  /** The user's login environment, read once (process/loginEnv.ts); absent: this process's. */
  loginEnv?: () => Promise<NodeJS.ProcessEnv>;
  /** Variables a child process gets even though their names look like secrets (Settings). */
  envPassthrough?: readonly string[];
  /** Called with a started child process; the returned function is called when it ends (crash hygiene). */
  onSpawn?: (p: { pid: number; pgid: number | null; command: string }) => () => void;
  /** Finds the full stored output of an earlier tool result by tool call id or message id. */
  lookupToolOutput: (id: string) => string | null;
  /** The latest todo list of the session (from its last manage_todo_list result), if any. */
  latestTodos: () => TodoItem[] | null;
  /** Set when the call runs in the OS sandbox (policy `sandboxed`): commands are wrapped in it. */
  sandbox?: SandboxRun;
  /**
   * What the session may reach (its working folder, home, the app's data folder): grep and glob
   * skip what read_file would refuse or ask for (the data folder, credential places, links out of
   * the folder) instead of asking per file. Absent (a tool run alone in a test): the folder's own.
   */
  reach?: Reach;
  /**
   * Runs a delegate call's tasks in helpers and gives their reports (tools/delegate.ts): set for a
   * chat turn's calls, absent in a helper (helpers work one level deep).
   */
  delegate?: (args: DelegateRequest) => Promise<ToolResult>;
}

/** A delegate call's tasks, as its arguments parse (tools/delegate.ts). */
export interface DelegateRequest {
  tasks: { task: string; role?: string | undefined; tools?: string[] | undefined; model?: string | undefined }[];
}

export interface TodoItem {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

export interface ToolResult {
  ok: boolean;
  /** What the model reads (before write-time truncation, which the turn loop applies). */
  content: string;
  meta?: Record<string, unknown>;
}

/** JSON schema (the subset the OpenAI tools API takes) describing a tool's arguments. */
export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
}

export interface ToolDefinition<A = unknown> {
  name: string;
  description: string;
  parameters: JsonSchemaObject;
  /** Read-only tools run without approval under the `ask` policy. */
  readOnly: boolean;
  /** Runs without asking by the user's standing choice (an MCP server's or tool's auto-approve). */
  autoApprove?: boolean;
  args: z.ZodType<A>;
  run: (args: A, ctx: ToolContext) => Promise<ToolResult>;
  /**
   * File tools: the path the call touches, and the same args with it replaced by its resolved
   * form, so the tool acts on exactly the path that was checked (workspace/reach.ts).
   */
  path?: { get: (args: A) => string; set: (args: A, resolved: string) => A };
  /**
   * Tools that can run in the OS sandbox (shell): under the `sandboxed` policy they run there
   * without asking, unless `outside(args)` (the model asks to leave it), which asks.
   */
  sandbox?: { outside: (args: A) => boolean };
  /**
   * Tools that run a command line (shell): the line and the folder it runs in (relative to the
   * working folder), read for permission rules (rules/command.ts).
   */
  command?: (args: A) => { line: string; cwd?: string };
  /** An MCP tool: its server's name and its own, as permission rules name them. */
  mcp?: { server: string; tool: string };
  /**
   * File-changing tools: the change the call would make, for the approval card, worked out
   * without writing (null: nothing to show, e.g. the call would be refused).
   */
  preview?: (args: A, ctx: Pick<ToolContext, 'cwd'>) => Promise<ToolDiff | null>;
  /**
   * The result as cut by write-time truncation, rewritten for this tool (read_file: the marker
   * names the lines left out and how to read them). Gets the args the tool ran with.
   */
  onTruncated?: (text: string, args: A) => string;
}

/** The `tools` array entry of an OpenAI chat request. */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchemaObject };
}
