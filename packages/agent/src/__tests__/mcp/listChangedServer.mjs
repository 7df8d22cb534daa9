// A stdio MCP server for the tests, built with the SDK's McpServer: `unlock` adds a second tool,
// and McpServer announces the new list (notifications/tools/list_changed).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'growing', version: '1.0.0' });
server.registerTool('unlock', { description: 'Adds the secret tool' }, async () => {
  server.registerTool('secret', { description: 'The tool unlock added' }, async () => ({
    content: [{ type: 'text', text: 'found it' }],
  }));
  return { content: [{ type: 'text', text: 'unlocked' }] };
});
await server.connect(new StdioServerTransport());
