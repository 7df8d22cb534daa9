// A stdio MCP server for the tests that exits right after it sent its tool list: connected, then
// crashed, every time. Each start appends a line to the file named by argv[2].
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

appendFileSync(process.argv[2], 'start\n');
const server = new McpServer({ name: 'crashing', version: '1.0.0' });
server.registerTool('noop', { description: 'Does nothing' }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
const transport = new StdioServerTransport();
await server.connect(transport);
const send = transport.send.bind(transport);
transport.send = async (message) => {
  await send(message);
  if (message.result && 'tools' in message.result) {
    process.stderr.write('fatal: out of cheese\n');
    process.exit(1);
  }
};
