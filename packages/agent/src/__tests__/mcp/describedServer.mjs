// A stdio MCP server for the tests: one tool, `now`, whose description is read from the file named
// by its first argument at every start, so a test can change it between starts.
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'clock', version: '1.0.0' });
server.registerTool('now', { description: readFileSync(process.argv[2], 'utf8') }, async () => ({
  content: [{ type: 'text', text: 'noon' }],
}));
await server.connect(new StdioServerTransport());
