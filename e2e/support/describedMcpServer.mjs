// A stdio MCP server for the e2e tests: one tool, `clock__now`, whose description is read from a
// file at every start, so a test can change it between starts. `node describedMcpServer.mjs
// <sdk package folder> <description file>` (the SDK is passed in: this folder does not depend on it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [sdk, descriptionFile] = process.argv.slice(2);
const { McpServer } = await import(pathToFileURL(join(sdk, 'dist/esm/server/mcp.js')).href);
const { StdioServerTransport } = await import(pathToFileURL(join(sdk, 'dist/esm/server/stdio.js')).href);

const server = new McpServer({ name: 'clock', version: '1.0.0' });
server.registerTool('now', { description: readFileSync(descriptionFile, 'utf8') }, async () => ({
  content: [{ type: 'text', text: new Date(0).toISOString() }],
}));
await server.connect(new StdioServerTransport());
