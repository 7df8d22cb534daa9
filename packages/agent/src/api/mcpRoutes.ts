import type { AppApi, McpServerInfo } from '@threadline/protocol';
import { errorMessage, AppError } from '@threadline/protocol';
import { parseClaudeConfig } from '../mcp/importConfig';
import type { McpManager } from '../mcp/manager';
import { requireSession, type ApiContext } from './apiContext';
import { notFound } from './errors';

type McpRoutes = Pick<
  AppApi,
  | 'mcp.servers.list'
  | 'mcp.servers.upsert'
  | 'mcp.servers.remove'
  | 'mcp.servers.restart'
  | 'mcp.servers.import'
  | 'mcp.servers.sessionDisable'
  | 'mcp.tools.approve'
>;

/** MCP server configuration over the store, and the live state of each server from the manager. */
export function mcpRoutes(ctx: ApiContext, mcp: McpManager): McpRoutes {
  const { store } = ctx.deps;
  const info = (id: string): McpServerInfo => {
    const r = store.mcpServers.get(id);
    if (!r) throw notFound('MCP server', id);
    return mcp.info(r);
  };
  return {
    'mcp.servers.list': async ({ sessionId }) => ({ servers: mcp.list(sessionId) }),
    'mcp.servers.upsert': async (input) => {
      const r = store.mcpServers.upsert(input);
      await mcp.reconfigured(r.id);
      return { server: info(r.id) };
    },
    'mcp.servers.remove': async ({ id }) => {
      store.mcpServers.remove(id);
      await mcp.removed(id);
      return { removed: true };
    },
    // Resolves when the server is connected or failed, so the answer carries its new state.
    'mcp.servers.restart': async ({ id }) => {
      const r = store.mcpServers.get(id);
      if (!r) throw notFound('MCP server', id);
      if (!r.enabled) throw new AppError('conflict', `The MCP server "${r.name}" is disabled; enable it first.`);
      await mcp.restart(id);
      return { server: info(id) };
    },
    'mcp.servers.import': async ({ json }) => {
      const parsed = parseClaudeConfig(
        json,
        store.mcpServers.list().map((s) => s.name),
      );
      const servers: McpServerInfo[] = [];
      const skipped = [...parsed.skipped];
      for (const s of parsed.servers) {
        try {
          const r = store.mcpServers.upsert(s);
          await mcp.reconfigured(r.id);
          servers.push(info(r.id));
        } catch (err) {
          skipped.push({ name: s.name, reason: errorMessage(err) });
        }
      }
      return { servers, skipped };
    },
    // The tools as the server lists them now: the user saw them in Settings and approved them.
    'mcp.tools.approve': async ({ id }) => {
      if (!store.mcpServers.get(id)) throw notFound('MCP server', id);
      mcp.approveTools(id);
      return { server: info(id) };
    },
    'mcp.servers.sessionDisable': async ({ sessionId, ids, disabled }) => {
      requireSession(ctx, sessionId);
      for (const id of ids) if (!store.mcpServers.get(id)) throw notFound('MCP server', id);
      return { disabled: mcp.setSessionDisabled(sessionId, ids, disabled) };
    },
  };
}
