// The one declaration of every AppApi route, merged from one file per domain under
// routes/. Each route names its input and output zod schema there; every type below is derived
// from them, so a route cannot be declared in one place and forgotten in another.
import type { z } from 'zod';
import { attachmentRoutes } from './routes/attachments';
import { branchRoutes } from './routes/branches';
import { chatRoutes } from './routes/chat';
import { checkpointRoutes } from './routes/checkpoints';
import { heldRoutes } from './routes/held';
import { compactionRoutes } from './routes/compaction';
import { instructionsRoutes } from './routes/instructions';
import { mcpRoutes } from './routes/mcp';
import { memoryRoutes } from './routes/memory';
import { projectRoutes } from './routes/project';
import { providerRoutes } from './routes/providers';
import { rulesRoutes } from './routes/rules';
import { searchRoutes } from './routes/search';
import { sandboxRoutes } from './routes/sandbox';
import { sessionRoutes } from './routes/sessions';
import { settingsRoutes } from './routes/settings';
import { usageRoutes } from './routes/usage';

export * from './errors';
export type { RouteDef, RouteMap } from './routes/define';
export { SessionSummarySchema, type SessionSummary } from './routes/sessions';
export {
  ChatStateSchema,
  PendingToolCallSchema,
  RunningCompactionSchema,
  AccessReasonSchema,
  ToolAccessSchema,
  ToolDiffSchema,
  TurnAcceptedSchema,
  CHAT_TEXT_MAX,
  MESSAGE_TEXT_KEEP,
  type ChatState,
  type PendingToolCall,
  type RunningCompaction,
  type AccessReason,
  type ToolAccess,
  type ToolDiff,
} from './routes/chat';
export {
  ProjectImportResultSchema,
  PROJECT_DECIDE_MAX,
  PROJECT_IMPORT_MAX_CHARS,
  type ProjectImportResult,
} from './routes/project';
export { ProviderTestResultSchema, type ProviderTestResult } from './routes/providers';
export {
  NoSandboxReasonSchema,
  SandboxKindSchema,
  SandboxStatusSchema,
  ToolSandboxSchema,
  type NoSandboxReason,
  type SandboxStatus,
  type ToolSandbox,
} from './routes/sandbox';
export {
  ProjectInstructionsSchema,
  SessionInstructionsSchema,
  type ProjectInstructions,
  type SessionInstructions,
} from './routes/instructions';

/** The routes of each domain; a name belongs to exactly one (the protocol tests check it). */
export const ROUTE_DOMAINS = {
  sessions: sessionRoutes,
  chat: chatRoutes,
  branches: branchRoutes,
  search: searchRoutes,
  compaction: compactionRoutes,
  memory: memoryRoutes,
  project: projectRoutes,
  settings: settingsRoutes,
  providers: providerRoutes,
  mcp: mcpRoutes,
  attachments: attachmentRoutes,
  sandbox: sandboxRoutes,
  instructions: instructionsRoutes,
  checkpoints: checkpointRoutes,
  held: heldRoutes,
  usage: usageRoutes,
  rules: rulesRoutes,
} as const;

/** Every route: `{ input, output }` zod schemas by name. The same names are used over IPC and HTTP. */
export const ROUTES = {
  ...sessionRoutes,
  ...chatRoutes,
  ...branchRoutes,
  ...searchRoutes,
  ...compactionRoutes,
  ...memoryRoutes,
  ...projectRoutes,
  ...settingsRoutes,
  ...providerRoutes,
  ...mcpRoutes,
  ...attachmentRoutes,
  ...sandboxRoutes,
  ...instructionsRoutes,
  ...checkpointRoutes,
  ...heldRoutes,
  ...usageRoutes,
  ...rulesRoutes,
};
export type Routes = typeof ROUTES;

export type RouteName = keyof Routes;
export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];
/** What a caller sends (defaults still optional). */
export type RouteInput<R extends RouteName> = z.input<Routes[R]['input']>;
/** What the implementation receives: the input after its schema parsed it. */
export type RouteParsedInput<R extends RouteName> = z.output<Routes[R]['input']>;
export type RouteOutput<R extends RouteName> = z.output<Routes[R]['output']>;

/** The one API both shells expose: IPC in Electron, HTTP in browser mode. */
export type AppApi = { [R in RouteName]: (input: RouteParsedInput<R>) => Promise<RouteOutput<R>> };
