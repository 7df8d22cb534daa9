// Real MCP servers for the tests: server-everything from the npm registry over stdio, and a small
// Streamable HTTP server built with the SDK's McpServer on 127.0.0.1.
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

const require = createRequire(import.meta.url);

/** `node <server-everything>/dist/index.js stdio`: no npx, no network. */
export function everythingStdio(): { command: string; args: string[] } {
  const pkg = require.resolve('@modelcontextprotocol/server-everything/package.json');
  return { command: process.execPath, args: [pkg.replace(/package\.json$/, 'dist/index.js'), 'stdio'] };
}

/** `node <server-filesystem>/dist/index.js <dirs…>`. */
export function filesystemStdio(...dirs: string[]): { command: string; args: string[] } {
  const pkg = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
  return { command: process.execPath, args: [pkg.replace(/package\.json$/, 'dist/index.js'), ...dirs] };
}

export interface HttpMcp {
  url: string;
  /** Authorization headers the server saw, in order. */
  seenAuth: (string | undefined)[];
  close(): Promise<void>;
}

/** A stateless Streamable HTTP MCP server with one tool, `add`. */
export async function startHttpMcp(): Promise<HttpMcp> {
  const seenAuth: (string | undefined)[] = [];
  const http: Server = createServer((req, res) => {
    seenAuth.push(req.headers.authorization);
    const mcp = new McpServer({ name: 'tiny', version: '1.0.0' });
    mcp.registerTool(
      'add',
      {
        description: 'Adds two numbers',
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number() },
      },
      async ({ a, b }) => ({
        content: [{ type: 'text', text: `The sum is ${a + b}` }],
        structuredContent: { sum: a + b },
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seenAuth,
    close: () => new Promise<void>((r) => http.close(() => r())),
  };
}

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
export async function refusedUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/mcp`;
}

/**
 * Waits (vi.waitFor, no fixed sleeps) until `fn` gives a truthy value, and returns it: for states a
 * background process reaches. `what` names it when it never does.
 */
export function until<T>(fn: () => T | undefined | null | false, what: string, timeoutMs = 20_000): Promise<T> {
  return vi.waitFor(
    () => {
      const v = fn();
      if (!v) throw new Error(`timed out waiting for ${what}`);
      return v;
    },
    { timeout: timeoutMs, interval: 20 },
  );
}
