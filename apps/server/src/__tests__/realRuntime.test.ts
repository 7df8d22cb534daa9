import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type ChatRequestView, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import {
  ROUTE_NAMES,
  ROUTES,
  type ChatState,
  type PendingToolCall,
  type RouteName,
  type Rule,
} from '@threadline/protocol';
import { startBrowserMode } from '../browserMode';

// The real runtime (createAppApi over a real SQLite store, provider = fake-llm over HTTP) behind
// the real browser-mode server: every route of the protocol answers over HTTP.

interface Rpc {
  status: number;
  body: { ok: boolean; data?: unknown; error?: { code: string; message: string; details?: unknown } };
}

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

const lastIsTool = (req: ChatRequestView) => req.messages.at(-1)?.role === 'tool';

describe('browser mode with the real runtime', () => {
  it('answers every route over HTTP with ok:true in its declared shape, and 400 for an invalid input', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tl-real-'));
    const llm: FakeLlm = await startFakeLlm({
      defaultReply: (req): FakeReply =>
        lastIsTool(req)
          ? { content: 'not run, fine' }
          : { toolCalls: [{ name: 'shell', arguments: { command: 'touch should-not-exist' } }] },
    });
    const env = {
      THREADLINE_PROVIDER_URL: llm.url,
      THREADLINE_MODEL: 'fake-model',
      THREADLINE_CONTEXT_WINDOW: '16000',
      OPENAI_API_KEY: 'test-key',
    };
    const app = await startBrowserMode({ port: 0, dataDir, staticDir: null, env });
    cleanup = async () => {
      await app.close();
      await llm.close();
      rmSync(dataDir, { recursive: true, force: true });
    };
    const called = new Set<RouteName>();
    const rpc = async (route: RouteName, input: unknown): Promise<Rpc> => {
      const res = await fetch(`http://127.0.0.1:${app.port}/api/rpc/${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      return { status: res.status, body: (await res.json()) as Rpc['body'] };
    };
    /** Calls a route that must succeed and returns its data. */
    const ok = async <T>(route: RouteName, input: unknown): Promise<T> => {
      const r = await rpc(route, input);
      expect({ route, status: r.status, ok: r.body.ok, error: r.body.error }).toEqual({
        route,
        status: 200,
        ok: true,
        error: undefined,
      });
      // Every answer has the shape its route declares, and no field the declaration lacks.
      expect(ROUTES[route].output.parse(r.body.data), route).toEqual(r.body.data);
      called.add(route);
      return r.body.data as T;
    };
    /** Waits (vi.waitFor) until `pred` holds. */
    const until = (pred: () => Promise<boolean>) =>
      vi.waitFor(async () => expect(await pred()).toBe(true), { timeout: 20_000, interval: 20 });

    // Providers: the environment preconfigured the active profile.
    const [profile] = await ok<{ id: string; active: boolean }[]>('providers.list', {});
    expect(profile.active).toBe(true);
    await ok('providers.upsert', {
      id: profile.id,
      preset: 'custom',
      name: 'fake',
      baseUrl: llm.url,
      model: 'fake-model',
      contextWindow: 16000,
    });
    await ok('providers.setActive', { id: profile.id });
    expect(await ok<{ ok: boolean }>('providers.test', { id: profile.id })).toMatchObject({ ok: true });
    await ok('settings.get', {});
    await ok('settings.set', { patch: { approvalPolicy: 'ask' } });

    // Sessions.
    await ok('sessions.list', {});
    const session = await ok<{ id: string }>('sessions.create', { title: 'Real runtime' });
    const sessionId = session.id;
    await ok('sessions.rename', { id: sessionId, title: 'Renamed' });
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'tl-folder-')));
    expect(await ok('sessions.update', { id: sessionId, workingFolder: folder })).toMatchObject({
      workingFolder: folder,
    });
    // The OS sandbox and the session's network switch.
    expect(await ok('sandbox.status', { sessionId })).toMatchObject({ network: false });
    expect(await ok('instructions.setSession', { sessionId, systemPrompt: 'Be brief.' })).toMatchObject({
      session: 'Be brief.',
    });
    expect(await ok('instructions.get', { sessionId })).toMatchObject({ session: 'Be brief.' });
    expect(await ok('sandbox.setNetwork', { sessionId, allowed: true })).toMatchObject({ network: true });

    // A turn whose shell call waits for approval: chat.state shows it, chat.approve answers it.
    const sent = await ok<{ userMessageId: string }>('chat.send', { sessionId, text: 'run it' });
    let waiting = undefined as PendingToolCall | undefined;
    await until(async () => {
      const state = await ok<ChatState>('chat.state', { sessionId });
      waiting = state.pending.find((p) => p.status === 'waiting');
      return state.busy && waiting !== undefined;
    });
    if (!waiting) throw new Error('no call waits for approval');
    expect(waiting.needsApproval).toBe(true);
    // "Deny in this session": a rule made from the call (its program, any arguments).
    const program = waiting.rules!.parts[0]!.options.at(-1)!;
    await ok('chat.approve', {
      sessionId,
      toolCallId: waiting.toolCall.id,
      decision: 'deny',
      remember: { scope: 'session', matches: [program] },
    });
    await until(async () => !(await ok<ChatState>('chat.state', { sessionId })).busy);
    const [denied] = await ok<Rule[]>('rules.list', { sessionId });
    expect(denied).toMatchObject({ decision: 'deny', match: program, scope: { kind: 'session', sessionId } });
    expect(await ok('rules.remove', { id: denied!.id })).toEqual({ removed: true });
    expect(await ok('rules.list', {})).toEqual([]);
    expect(await ok('chat.cancel', { sessionId })).toEqual({ cancelled: false });
    const messages = await ok<{ role: string; content: string | null }[]>('messages.list', { sessionId });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(await ok('messages.fullOutput', { id: sent.userMessageId })).toEqual({ text: null });

    // Versions and search: the shell is denied from here on, so each new answer ends by itself.
    const anyCommand = { kind: 'command', tool: 'shell', words: [], more: true, sandbox: 'also_outside' };
    const denyAll = await ok<Rule>('rules.save', {
      decision: 'deny',
      match: anyCommand,
      scope: { kind: 'session', sessionId },
      reason: 'Not now.',
    });
    const idle = () => until(async () => !(await ok<ChatState>('chat.state', { sessionId })).busy);
    expect(await ok('chat.regenerate', { sessionId })).toEqual({ accepted: true, userMessageId: sent.userMessageId });
    await idle();
    expect(await ok('chat.retry', { sessionId })).toEqual({ accepted: true, userMessageId: sent.userMessageId });
    await idle();
    await ok('chat.edit', { sessionId, messageId: sent.userMessageId, text: 'run it, edited' });
    await idle();
    const back = await ok<{ id: string }[]>('branches.switch', { sessionId, messageId: sent.userMessageId });
    expect(back[0]!.id).toBe(sent.userMessageId);
    const hits = await ok<{ messageId: string }[]>('search.messages', { query: 'run it' });
    expect(hits.map((h) => h.messageId)).toContain(sent.userMessageId);
    await ok('rules.remove', { id: denyAll.id });

    // Compaction and context.
    await ok('context.usage', { sessionId });
    await ok('compaction.preview', { sessionId });
    await ok('compaction.run', { sessionId });
    await ok('compaction.list', { sessionId });
    await ok('compaction.undo', { sessionId });
    // Leave one message out of what the model reads (a message over the window's remedy), then undo it.
    const inView = await ok<{ id: string; role: string; visibility: { agent: boolean } }[]>('messages.list', {
      sessionId,
    });
    const lastUser = inView.filter((m) => m.role === 'user' && m.visibility.agent).at(-1)!;
    const fitted = await ok<{ compaction: { hiddenIds: string[] } }>('compaction.fitMessage', {
      sessionId,
      messageId: lastUser.id,
      action: 'remove',
    });
    expect(fitted.compaction.hiddenIds).toEqual([lastUser.id]);
    await ok('compaction.undo', { sessionId });

    // Usage and cost: the calls above were stored with the provider's usage.
    const spent = await ok<{ total: { calls: number } }>('usage.session', { sessionId });
    expect(spent.total.calls).toBeGreaterThan(0);
    await ok('usage.daily', { tzOffsetMinutes: 0 });
    await ok('usage.prices.list', { profileId: profile!.id });
    await ok('usage.prices.set', {
      profileId: profile!.id,
      model: 'm',
      price: { input: 1, cachedInput: 0.1, output: 2 },
    });
    await ok('usage.resendEstimate', { sessionId });

    // Memory.
    const fact = await ok<{ id: string }>('memory.facts.upsert', {
      sessionId,
      category: 'note',
      content: 'prefers short answers',
    });
    await ok('memory.facts.list', { sessionId });
    await ok('memory.facts.setStatus', { id: fact.id, status: 'forgotten' });
    await ok('memory.candidates.list', { sessionId });

    // MCP servers: a server that exits at once answers restart with its error; no secret comes back.
    const quits = await ok<{ server: { id: string } }>('mcp.servers.upsert', {
      name: 'quits',
      transport: 'stdio',
      command: process.execPath,
      args: ['-e', 'process.exit(1)'],
      env: { TOKEN: 'secret-value' },
    });
    const restarted = await ok<{ server: { status: string } }>('mcp.servers.restart', { id: quits.server.id });
    expect(restarted.server.status).toBe('error');
    const listed = await ok('mcp.servers.list', { sessionId });
    expect(JSON.stringify(listed)).not.toContain('secret-value');
    // Nothing of its tools is waiting for review: approving is a no-op that answers the server.
    expect(await ok('mcp.tools.approve', { id: quits.server.id })).toMatchObject({ server: { id: quits.server.id } });
    await ok('mcp.servers.sessionDisable', { sessionId, ids: [quits.server.id], disabled: true });
    await ok('mcp.servers.import', {
      json: JSON.stringify({ mcpServers: { remote: { url: 'http://127.0.0.1:9/mcp' } } }),
    });
    await ok('mcp.servers.remove', { id: quits.server.id });

    // A turn that changes the folder: its checkpoint is listed, diffed, undone and redone.
    await ok('rules.save', { decision: 'allow', match: anyCommand, scope: { kind: 'session', sessionId } });
    await ok('chat.send', { sessionId, text: 'touch a file' });
    await idle();
    const { checkpoints } = await ok<{ checkpoints: { id: string }[] }>('checkpoints.list', { sessionId });
    expect(checkpoints).toHaveLength(1);
    await ok('checkpoints.diff', { checkpointId: checkpoints[0]!.id });
    expect(await ok('checkpoints.restore', { checkpointId: checkpoints[0]!.id })).toMatchObject({ applied: true });
    expect(await ok('checkpoints.redo', { checkpointId: checkpoints[0]!.id })).toMatchObject({ applied: true });

    // A model per session, the provider's models, attachments, a profile deleted.
    expect(await ok('providers.models', { id: profile.id })).toEqual({ models: ['fake-model'], error: null });
    const second = await ok<{ id: string }>('providers.upsert', {
      preset: 'custom',
      name: 'second',
      baseUrl: llm.url,
      model: 'other-model',
      contextWindow: 8000,
    });
    expect(await ok('sessions.setModel', { id: sessionId, profileId: second.id, model: 'typed' })).toMatchObject({
      profileId: second.id,
      model: 'typed',
    });
    expect(await ok('providers.delete', { id: second.id })).toEqual({ deleted: true, sessions: 1 });
    const note = await ok<{ id: string; kind: string }>('attachments.add', {
      name: 'note.txt',
      mime: 'text/plain',
      data: Buffer.from('hello').toString('base64'),
    });
    expect(note.kind).toBe('text');
    expect(await ok('attachments.get', { id: note.id })).toMatchObject({ text: 'hello', dataUrl: null });
    // Never sent: taken out of the composer, it is deleted.
    expect(await ok('attachments.discard', { id: note.id })).toEqual({ deleted: true });

    // Project memory: a fact typed, a file imported into the inbox, decided, forgotten, exported.
    expect(await ok<{ project: string | null }>('project.get', { sessionId })).toMatchObject({ enabled: true });
    const typed = await ok<{ id: string; status: string }>('project.facts.upsert', {
      sessionId,
      kind: 'instruction',
      content: 'Always answer in English.',
    });
    expect(typed.status).toBe('accepted');
    expect(await ok('project.facts.setStatus', { id: typed.id, status: 'forgotten' })).toMatchObject({
      status: 'forgotten',
    });
    const exported = await ok<{ text: string }>('project.export', { sessionId, format: 'json' });
    const imported = JSON.stringify({
      ...(JSON.parse(exported.text) as object),
      facts: [{ kind: 'command', content: 'make check', detail: 'test' }],
    });
    expect(await ok('project.import', { sessionId, text: imported })).toEqual({ added: 1, skipped: 0 });
    const inbox = (await ok<{ facts: { id: string; status: string }[] }>('project.get', { sessionId })).facts.filter(
      (f) => f.status === 'candidate',
    );
    expect(await ok('project.decide', { ids: inbox.map((f) => f.id), decision: 'reject' })).toHaveLength(1);

    // Held files: none held in this session; Discard of none does nothing.
    expect(await ok('held.list', { sessionId })).toEqual({ files: [] });
    expect(await ok('held.resolve', { sessionId, decision: 'discard' })).toEqual({ done: [], failed: [], files: [] });

    // Export, then delete.
    expect(await ok<{ mime: string }>('sessions.export', { id: sessionId, format: 'markdown' })).toMatchObject({
      mime: 'text/markdown',
    });
    await ok('sessions.delete', { id: sessionId });

    expect([...called].sort()).toEqual([...ROUTE_NAMES].sort());

    const invalid = await rpc('sessions.rename', { id: sessionId });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_input',
        message: expect.stringMatching(/^title: /),
        details: { issues: [{ path: ['title'], code: 'invalid_type', message: expect.any(String) }] },
      },
    });
  });

  it('starts with an invalid THREADLINE_CONTEXT_WINDOW, as the desktop app does, and says why', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tl-real-'));
    try {
      const env = { THREADLINE_PROVIDER_URL: 'http://127.0.0.1:9/v1', THREADLINE_CONTEXT_WINDOW: '128k' };
      const running = await startBrowserMode({ port: 0, dataDir, staticDir: null, env });
      try {
        expect(running.startupWarnings.join('\n')).toMatch(/THREADLINE_CONTEXT_WINDOW/);
        // The app works without the environment's provider: the API answers, with no profile from it.
        const res = await fetch(`http://127.0.0.1:${running.port}/api/rpc/providers.list`, {
          method: 'POST',
          headers: { authorization: `Bearer ${running.token}`, 'content-type': 'application/json' },
          body: '{}',
        });
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ ok: true, data: [] });
      } finally {
        await running.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
