// A stdio MCP server in the OS sandbox: server-filesystem, told it may use a whole folder that
// also holds the app's data and a sibling, still cannot read the data nor write the sibling.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '@threadline/store';
import { McpManager } from '../../mcp/manager';
import { detectSandbox, SandboxService } from '../../sandbox';
import { parseToolCall, runParsedTool } from '../../tools/registry';
import type { ToolContext } from '../../tools/types';
import { filesystemStdio } from './servers';

const found = await detectSandbox('linux');
const NO_BWRAP = found.kind === 'bwrap' ? null : `bwrap is not usable here (${found.reason ?? '?'})`;
if (NO_BWRAP) console.warn(`skipping the MCP sandbox tests: ${NO_BWRAP}; install bubblewrap`);

/** Not under /tmp (the sandbox has its own): see sandbox/__tests__/sandbox.test.ts. */
const BASE = path.resolve(import.meta.dirname, '../../../node_modules/.cache');

let root: string;
let store: Store;
const managers: McpManager[] = [];
const services: SandboxService[] = [];

beforeEach(() => {
  mkdirSync(BASE, { recursive: true });
  root = mkdtempSync(path.join(BASE, 'tl-mcp-sandbox-'));
  for (const d of ['data', 'work', 'sibling', 'home']) mkdirSync(path.join(root, d));
  writeFileSync(path.join(root, 'data', 'secret.key'), 'the sealing key');
  store = openStore({ file: path.join(root, 'data', 'threadline.db'), env: {}, allowPlaintextKeys: true });
});

afterEach(async () => {
  for (const m of managers.splice(0)) await m.dispose();
  for (const s of services.splice(0)) s.dispose();
  store.close();
  rmSync(root, { recursive: true, force: true });
});

const ctx = (): ToolContext => ({
  sessionId: 's',
  cwd: root,
  platform: process.platform,
  signal: new AbortController().signal,
  shellTimeoutMs: 20_000,
  lookupToolOutput: () => null,
  latestTodos: () => null,
});

function manager(sandboxed: boolean): McpManager {
  const sandbox = new SandboxService({
    platform: 'linux',
    homeDir: path.join(root, 'home'),
    dataDir: path.join(root, 'data'),
    dbFile: path.join(root, 'data', 'threadline.db'),
    ...(sandboxed ? {} : { detect: { force: 'none' as const } }),
  });
  services.push(sandbox);
  const m = new McpManager({ store, sandbox, dataDir: path.join(root, 'data') });
  managers.push(m);
  return m;
}

async function callTool(m: McpManager, name: string, args: unknown): Promise<string> {
  const parsed = parseToolCall(m.registry([], 's'), {
    id: 'c1',
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  });
  if (!parsed.ok) throw new Error(parsed.error);
  return (await runParsedTool(parsed.tool, parsed.args, ctx())).content;
}

describe.skipIf(NO_BWRAP !== null)('a stdio MCP server in the sandbox', () => {
  it("writes its own folder, cannot write beside it nor read the app's data; without the sandbox it can", async () => {
    // The server runs in the folder configured for it: that one is writable, nothing beside it.
    store.mcpServers.upsert({ name: 'fs', transport: 'stdio', ...filesystemStdio(root), cwd: path.join(root, 'work') });
    const boxed = manager(true);
    await boxed.prepareTurn('s');
    expect(boxed.list()[0]).toMatchObject({ status: 'connected' });
    const inWork = path.join(root, 'work', 'ok.txt');
    const beside = path.join(root, 'sibling', 'planted.txt');
    await callTool(boxed, 'fs__write_file', { path: inWork, content: 'fine' });
    expect(existsSync(inWork)).toBe(true);
    const refused = await callTool(boxed, 'fs__write_file', { path: beside, content: 'planted' });
    expect(refused).toMatch(/read-only|EROFS/i);
    expect(existsSync(beside)).toBe(false);
    const secret = await callTool(boxed, 'fs__read_text_file', { path: path.join(root, 'data', 'secret.key') });
    expect(secret).not.toContain('the sealing key');
    await boxed.dispose();

    const bare = manager(false);
    await bare.prepareTurn('s');
    await callTool(bare, 'fs__write_file', { path: beside, content: 'planted' });
    expect(existsSync(beside)).toBe(true);
    expect(await callTool(bare, 'fs__read_text_file', { path: path.join(root, 'data', 'secret.key') })).toContain(
      'the sealing key',
    );
  });
});
