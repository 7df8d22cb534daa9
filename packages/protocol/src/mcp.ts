import * as z from 'zod';
import { EnvNameSchema, WorkingFolderSchema } from './settings';

/** Between the server's and the tool's name in what the model sees: `<server>__<tool>`. */
export const MCP_TOOL_SEPARATOR = '__';

/** A server name as the user types it: also the prefix of its tools, so a few safe characters. */
export const McpServerNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'letters, digits, space, dot, dash and underscore only');

/** Env / header values: a string sets it; `null` keeps the stored value of that name (edits never see it). */
const SecretMapSchema = z.record(z.string().min(1).max(200), z.string().max(8192).nullable());

const common = {
  id: z.string().min(1).max(200).optional(),
  name: McpServerNameSchema,
  enabled: z.boolean().optional(),
  /** `lazy` (default): started when a turn first needs it; `launch`: at app start. */
  startup: z.enum(['lazy', 'launch']).optional(),
  /** Tools that run without asking: `true` for every tool of the server, or tool names. */
  autoApprove: z.union([z.boolean(), z.array(z.string().min(1).max(200)).max(500)]).optional(),
};

export const McpServerUpsertSchema = z.discriminatedUnion('transport', [
  z.object({
    ...common,
    transport: z.literal('stdio'),
    command: z.string().trim().min(1, 'a command is required').max(4096),
    args: z.array(z.string().max(8192)).max(200).optional(),
    env: SecretMapSchema.optional(),
    /**
     * The child's folder (absolute or ~): null or absent, a neutral folder of its own under the
     * app's data folder, never a session's working folder (a file planted there could be run).
     */
    cwd: WorkingFolderSchema.nullable().optional(),
    /**
     * Names of this process's environment variables the child also gets, beyond the core set
     * (PATH, HOME, LANG, TERM…). Everything else of the app's environment stays out.
     */
    envAllow: z.array(EnvNameSchema).max(100).optional(),
  }),
  z.object({
    ...common,
    transport: z.literal('http'),
    url: z.url({ protocol: /^https?$/ }),
    headers: SecretMapSchema.optional(),
  }),
]);
export type McpServerUpsert = z.infer<typeof McpServerUpsertSchema>;

export const McpServerStatusSchema = z.enum(['disabled', 'stopped', 'starting', 'connected', 'error']);
export type McpServerStatus = z.infer<typeof McpServerStatusSchema>;
/**
 * Where a start is (status `starting`): the command was started; its package runner is
 * downloading the package (npx, uvx: a first start); the server answered and its tools are listed.
 */
export const McpStartStageSchema = z.enum(['starting', 'downloading', 'listing_tools']);
export type McpStartStage = z.infer<typeof McpStartStageSchema>;

/** A secret's name and whether a value is stored; never the value. */
export const McpSecretNameSchema = z.object({ name: z.string(), set: z.boolean() });
export type McpSecretName = z.infer<typeof McpSecretNameSchema>;

/**
 * A tool a server offers, as the user reviews it in Settings. `pinned`: the model sees it (its
 * description and schema hash match what the user approved, or what was pinned when the server
 * first listed its tools); `new` / `changed`: held back from the model until the user approves.
 */
export const McpToolReviewSchema = z.object({
  name: z.string(),
  description: z.string(),
  /** The input schema as JSON text. */
  inputSchema: z.string(),
  state: z.enum(['pinned', 'new', 'changed']),
  /** For `changed`: the description the user approved before. */
  pinnedDescription: z.string().optional(),
});
export type McpToolReview = z.infer<typeof McpToolReviewSchema>;

/** What the renderer learns of a server: config without secrets, and its live state. */
export const McpServerInfoSchema = z.object({
  id: z.string(),
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  enabled: z.boolean(),
  startup: z.enum(['lazy', 'launch']),
  autoApprove: z.union([z.boolean(), z.array(z.string())]),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.array(McpSecretNameSchema).optional(),
  /** stdio: the configured folder (null: the neutral one) and the folder the child runs in. */
  cwd: z.string().nullable().optional(),
  runFolder: z.string().optional(),
  envAllow: z.array(z.string()).optional(),
  url: z.string().optional(),
  headers: z.array(McpSecretNameSchema).optional(),
  status: McpServerStatusSchema,
  /** While `starting`: its stage. */
  stage: McpStartStageSchema.optional(),
  /** Tool names as the server calls them (the model sees `<server>__<tool>`), pinned ones only. */
  tools: z.array(z.string()),
  /** Every tool the server lists now, with its description, schema and pin state (when connected). */
  review: z.array(McpToolReviewSchema).optional(),
  /** How many tools wait for the user's approval (new or changed); the model does not see them. */
  pendingReview: z.number().int().nonnegative().optional(),
  /** Switched off for the session asked about (mcp.servers.list with a sessionId). */
  sessionDisabled: z.boolean().optional(),
  /** One sentence, then the last lines the server wrote to stderr when there are any. */
  error: z.string().optional(),
});
export type McpServerInfo = z.infer<typeof McpServerInfoSchema>;

export const McpImportSchema = z.object({ json: z.string().min(1).max(1_000_000) });
