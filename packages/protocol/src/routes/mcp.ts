import * as z from 'zod';
import { McpImportSchema, McpServerInfoSchema, McpServerUpsertSchema } from '../mcp';
import { id, type RouteMap } from './define';

const serverOut = z.object({ server: McpServerInfoSchema });

/** MCP servers: tools from the ecosystem. */
export const mcpRoutes = {
  /** MCP servers; with `sessionId`, each says whether it is switched off for that session. */
  'mcp.servers.list': {
    input: z.object({ sessionId: id.optional() }).default({}),
    output: z.object({ servers: z.array(McpServerInfoSchema) }),
  },
  'mcp.servers.upsert': { input: McpServerUpsertSchema, output: serverOut },
  'mcp.servers.remove': { input: z.object({ id }), output: z.object({ removed: z.literal(true) }) },
  'mcp.servers.restart': { input: z.object({ id }), output: serverOut },
  /** Claude desktop's `{"mcpServers": {…}}` JSON, pasted or read from a file. */
  'mcp.servers.import': {
    input: McpImportSchema,
    output: z.object({
      servers: z.array(McpServerInfoSchema),
      skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
    }),
  },
  /**
   * The user approves the tools a server lists now (new ones, changed descriptions or schemas):
   * they are pinned as they are and given to the model from the next step on.
   */
  'mcp.tools.approve': { input: z.object({ id }), output: serverOut },
  /** Servers left out of one session's turns (their tool definitions cost too much of its window). */
  'mcp.servers.sessionDisable': {
    input: z.object({ sessionId: id, ids: z.array(id).max(200), disabled: z.boolean() }),
    output: z.object({ disabled: z.array(z.string()) }),
  },
} satisfies RouteMap;
