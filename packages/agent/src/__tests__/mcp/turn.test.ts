import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatRequestView, FakeReply } from '@threadline/fake-llm';
import { dispatchRoute } from '@threadline/protocol';
import { lastIsTool, startHarness, type Harness } from '../harness';
import { everythingStdio } from './servers';

let h: Harness;

afterEach(async () => h?.close());

const toolNames = (req: ChatRequestView): string[] =>
  (req.tools as { function: { name: string } }[]).map((t) => t.function.name);

/** Calls `name` once with `args`, then answers with what the tool returned. */
const callOnce =
  (name: string, args: unknown) =>
  (req: ChatRequestView): FakeReply =>
    lastIsTool(req)
      ? { content: `result: ${String(req.messages.at(-1)?.content).slice(0, 80)}` }
      : { toolCalls: [{ name, arguments: args as Record<string, unknown> }] };

async function addEverything(h: Harness, extra: Record<string, unknown> = {}) {
  const r = await dispatchRoute(h.api, 'mcp.servers.upsert', {
    name: 'everything',
    transport: 'stdio',
    ...everythingStdio(),
    ...extra,
  });
  if (!r.ok) throw new Error(r.error.message);
  return (r.data as { server: { id: string } }).server;
}

describe('MCP tools in a turn', () => {
  it('a lazy server starts with the turn; its tool is offered, asks for approval, runs, and is stored like a built-in', async () => {
    const seen: string[][] = [];
    h = await startHarness({
      llm: {
        defaultReply: (req) => {
          seen.push(toolNames(req));
          return callOnce('everything__echo', { message: 'from the model' })(req);
        },
      },
      settings: { compaction: { strategy: 'cfpm_memory_v1' } },
    });
    await addEverything(h);
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'echo something' });
    const req = await h.waitFor('tool.requested', undefined, 20_000);
    expect(req).toMatchObject({ needsApproval: true, toolCall: { function: { name: 'everything__echo' } } });
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: req.toolCall.id, decision: 'approve' });
    await h.api.idle(h.sessionId);
    expect(seen[0]).toEqual(expect.arrayContaining(['shell', 'everything__echo', 'everything__get-tiny-image']));
    const tool = h.history().find((m) => m.role === 'tool')!;
    expect(tool.content).toBe('Echo: from the model');
    expect(tool.meta).toMatchObject({
      toolName: 'everything__echo',
      status: 'ok',
      mcp: { server: 'everything', tool: 'echo' },
    });
    // The reply after the tool (notices, stored whole whatever the visibility, may follow it).
    expect(
      h
        .history()
        .filter((m) => m.role === 'assistant' && m.kind === 'normal')
        .at(-1)?.content,
    ).toBe('result: Echo: from the model');
    // CFPM keeps the succeeded call like a shell command.
    expect(h.store.memory.facts(h.sessionId).map((f) => f.content)).toContain(
      'called `everything__echo` {"message":"from the model"} (ok)',
    );
  });

  it('per-server auto-approve runs without asking; a long output is cut at write time with the full text pageable', async () => {
    h = await startHarness({
      llm: { defaultReply: callOnce('everything__echo', { message: 'x'.repeat(6000) }) },
      settings: { toolOutput: { policy: 'tokens', maxTokens: 200 } },
    });
    await addEverything(h, { autoApprove: true });
    await h.turn('echo a lot');
    const req = await h.waitFor('tool.requested');
    expect(req.needsApproval).toBe(false);
    const tool = h.history().find((m) => m.role === 'tool')!;
    expect(tool.meta?.truncated).toBe(true);
    expect(tool.content).toMatch(/truncated/);
    const full = await h.api['messages.fullOutput']({ id: tool.id });
    expect(full.text).toBe(`Echo: ${'x'.repeat(6000)}`);
  });

  it('per-tool auto-approve covers only the tools named', async () => {
    h = await startHarness({ llm: { defaultReply: callOnce('everything__get-sum', { a: 1, b: 2 }) } });
    await addEverything(h, { autoApprove: ['echo'] });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'sum' });
    const req = await h.waitFor('tool.requested', undefined, 20_000);
    expect(req.needsApproval).toBe(true);
    await h.api['chat.cancel']({ sessionId: h.sessionId });
  });

  it('a server that fails never blocks the turn: it proceeds without its tools', async () => {
    const seen: string[][] = [];
    h = await startHarness({
      llm: {
        defaultReply: (req) => {
          seen.push(toolNames(req));
          return { content: 'no tools needed' };
        },
      },
    });
    await dispatchRoute(h.api, 'mcp.servers.upsert', {
      name: 'broken',
      transport: 'stdio',
      command: 'threadline-missing-xyz',
    });
    await h.turn('hello');
    expect(h.history().at(-1)?.content).toBe('no tools needed');
    expect(seen[0]!.some((n) => n.startsWith('broken__'))).toBe(false);
    const list = await h.api['mcp.servers.list']({});
    expect(list.servers[0]).toMatchObject({ status: 'error', error: expect.stringMatching(/was not found/) });
  });

  it('a cancel does not wait for a server that is slow to start', async () => {
    // Accepts the connection and never answers: the start would wait for its whole timeout.
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      h = await startHarness({
        llm: { defaultReply: { content: 'never asked' } },
        api: { mcp: { startTimeoutMs: 120_000 } },
      });
      const port = (silent.address() as AddressInfo).port;
      await dispatchRoute(h.api, 'mcp.servers.upsert', {
        name: 'silent',
        transport: 'http',
        url: `http://127.0.0.1:${port}/mcp`,
      });
      await h.api['chat.send']({ sessionId: h.sessionId, text: 'hello' });
      await vi.waitFor(async () => expect((await h.api['mcp.servers.list']({})).servers[0]?.status).toBe('starting'), {
        timeout: 20_000,
        interval: 20,
      });
      expect(await h.api['chat.cancel']({ sessionId: h.sessionId })).toEqual({ cancelled: true });
      expect(h.llm.chatRequests()).toHaveLength(0);
      expect(h.history().at(-1)?.kind).toBe('turn_aborted');
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('counts tool definitions in the budget with the number of servers, warns over the share, and a session can switch a server off', async () => {
    h = await startHarness({
      llm: { defaultReply: { content: 'ok' } },
      window: 8000,
      settings: { mcp: { toolShareWarning: 0.05 } },
    });
    const before = await h.api['context.usage']({ sessionId: h.sessionId });
    const server = await addEverything(h);
    await h.turn('hi');
    const after = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(after.breakdown.tools).toBeGreaterThan(before.breakdown.tools);
    expect(after).toMatchObject({ toolServers: 1, toolsOverShare: true });
    expect(before).toMatchObject({ toolServers: 0, toolsOverShare: false });
    const off = await h.api['mcp.servers.sessionDisable']({ sessionId: h.sessionId, ids: [server.id], disabled: true });
    expect(off.disabled).toEqual([server.id]);
    const disabled = await h.api['context.usage']({ sessionId: h.sessionId });
    // The meter's parts are in the provider's tokens: the same definitions, at the calibration learned since.
    expect(before.calibration).toBe(1);
    const expected = before.breakdown.tools * disabled.calibration;
    expect(Math.abs(disabled.breakdown.tools - expected)).toBeLessThanOrEqual(Math.max(2, expected * 0.01));
    expect(disabled.toolServers).toBe(0);
    const listed = await h.api['mcp.servers.list']({ sessionId: h.sessionId });
    expect(listed.servers[0]).toMatchObject({ sessionDisabled: true, status: 'connected' });
  });
});

describe('mcp.servers routes', () => {
  it('never return a secret: env and header values come back as names with a set flag', async () => {
    h = await startHarness();
    const up = await dispatchRoute(h.api, 'mcp.servers.upsert', {
      name: 'remote',
      transport: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: { Authorization: 'Bearer SECRET-123' },
      enabled: false,
    });
    expect(up).toMatchObject({
      ok: true,
      data: { server: { headers: [{ name: 'Authorization', set: true }], status: 'disabled' } },
    });
    const list = await dispatchRoute(h.api, 'mcp.servers.list', {});
    expect(JSON.stringify([up, list])).not.toContain('SECRET-123');
  });

  it('import takes Claude desktop JSON and says why an entry was skipped; malformed JSON is one clear error', async () => {
    h = await startHarness();
    const json = JSON.stringify({
      mcpServers: {
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
        remote: { url: 'https://mcp.example.com/mcp', headers: { 'X-Key': 'k' } },
        legacy: { type: 'sse', url: 'https://old.example.com/sse' },
        empty: {},
        'bad/name': { command: 'x' },
      },
    });
    const r = await dispatchRoute(h.api, 'mcp.servers.import', { json });
    expect(r.ok).toBe(true);
    const data = r.ok
      ? (r.data as { servers: { name: string; transport: string }[]; skipped: { name: string; reason: string }[] })
      : null;
    expect(data!.servers.map((s) => [s.name, s.transport])).toEqual([
      ['filesystem', 'stdio'],
      ['remote', 'http'],
    ]);
    expect(data!.skipped.map((s) => s.name)).toEqual(['legacy', 'empty', 'bad/name']);
    expect(data!.skipped[0]!.reason).toMatch(/SSE/);
    const again = await dispatchRoute(h.api, 'mcp.servers.import', { json });
    expect((again.ok && (again.data as { skipped: { reason: string }[] }).skipped[0]!.reason) || '').toMatch(
      /already exists/,
    );

    const bad = await dispatchRoute(h.api, 'mcp.servers.import', { json: '{"mcpServers": {' });
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/^The text is not valid JSON/) },
    });
    const wrong = await dispatchRoute(h.api, 'mcp.servers.import', { json: '{"servers": {}}' });
    expect(wrong).toMatchObject({ ok: false, error: { message: expect.stringMatching(/mcpServers/) } });
    // Nothing else broke: the servers imported before are all still there.
    expect((await h.api['mcp.servers.list']({})).servers).toHaveLength(2);
  });

  it('upsert without a command is refused with its reason; remove and restart of an unknown id are not_found', async () => {
    h = await startHarness();
    const r = await dispatchRoute(h.api, 'mcp.servers.upsert', { name: 'x', transport: 'stdio', command: '' });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/command is required/) },
    });
    expect(await dispatchRoute(h.api, 'mcp.servers.remove', { id: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await dispatchRoute(h.api, 'mcp.servers.restart', { id: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });
});
