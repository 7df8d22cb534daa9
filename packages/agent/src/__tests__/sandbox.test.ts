// The `sandboxed` policy through the whole runtime: createAppApi, fake-llm over HTTP, real bwrap.
import { existsSync, mkdirSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequestView, FakeReply } from '@threadline/fake-llm';
import { DEFAULT_NETWORK_DOMAINS, type AppEvent } from '@threadline/protocol';
import { detectSandbox } from '../sandbox';
import { lastIsTool, startHarness, type Harness } from './harness';

const sandbox = await detectSandbox('linux');
const NO_BWRAP = sandbox.kind === 'bwrap' ? null : `bwrap is not usable here (${sandbox.reason ?? '?'})`;
if (NO_BWRAP) console.warn(`skipping the runtime sandbox tests: ${NO_BWRAP}; install bubblewrap`);

let h: Harness;
afterEach(async () => h?.close());

type Requested = Extract<AppEvent, { type: 'tool.requested' }>;

/** A model that runs `calls` one after the other (one per step), keeping every system prompt it got. */
function scripted(calls: Record<string, unknown>[], prompts: string[]): (req: ChatRequestView) => FakeReply {
  return (req) => {
    prompts.push(String(req.messages[0]?.content ?? ''));
    const done = req.messages.filter((m) => m.role === 'tool').length;
    if (done >= calls.length) return { content: 'finished' };
    return { toolCalls: [{ name: 'shell', arguments: calls[done] }] };
  };
}

function toolResults(): string[] {
  return h
    .history()
    .filter((m) => m.role === 'tool')
    .map((m) => m.content ?? '');
}

describe.skipIf(NO_BWRAP !== null)('shell under the default policy (sandboxed), with bwrap', () => {
  it('runs without an approval card, inside the sandbox; leaving it asks, and only then it runs outside', async () => {
    const prompts: string[] = [];
    const plant = "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit";
    h = await startHarness({
      llm: {
        defaultReply: scripted(
          [{ command: `echo made > made.txt; ${plant}` }, { command: plant, sandbox: false }],
          prompts,
        ),
      },
    });
    mkdirSync(path.join(h.dir, '.git', 'hooks'), { recursive: true });
    const hook = path.join(h.dir, '.git', 'hooks', 'pre-commit');
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'go' });
    // The second call (outside the sandbox) waits for the user; the first ran on its own.
    const asked = await h.waitFor('tool.requested', (e) => e.needsApproval);
    const requested = h.events.filter((e): e is Requested => e.type === 'tool.requested');
    expect(requested).toHaveLength(2);
    expect(requested[0]!.needsApproval).toBe(false);
    expect(requested[0]!.sandbox).toBeUndefined();
    expect(asked.sandbox).toEqual({ state: 'outside_requested' });
    // Ran in the sandbox: the folder is writable, the hook was refused, the model is told why.
    expect(existsSync(path.join(h.dir, 'made.txt'))).toBe(true);
    expect(existsSync(hook)).toBe(false);
    const first = h.history().find((m) => m.role === 'tool')!;
    expect(first.meta?.sandboxed).toBe('bwrap');
    expect(first.content).toMatch(/Read-only file system/);
    expect(first.content).toMatch(/\[sandbox\].*"sandbox": false/);
    // No rule allows a run outside the sandbox: it is approved one command at a time.
    expect(asked.rules?.blocked).toBe('leave_sandbox');
    const offered = asked.rules!.parts[0]!.options[0]!;
    await expect(
      h.api['chat.approve']({
        sessionId: h.sessionId,
        toolCallId: asked.toolCall.id,
        decision: 'approve',
        remember: { scope: 'everywhere', matches: [offered] },
      }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: asked.toolCall.id, decision: 'approve' });
    await h.api.idle(h.sessionId);
    expect(existsSync(hook)).toBe(true);
    await expect(h.api['rules.list']({})).resolves.toEqual([]);
    const second = h.history().filter((m) => m.role === 'tool')[1]!;
    expect(second.meta?.sandboxed).toBeUndefined();
    expect(prompts[0]).toMatch(/inside an OS sandbox \(bubblewrap\)/);
    expect(prompts[0]).toMatch(/the network is OFF for this session/);
  });

  it('a denied run outside the sandbox does not run', async () => {
    const prompts: string[] = [];
    h = await startHarness({
      llm: { defaultReply: scripted([{ command: 'touch outside-run', sandbox: false }], prompts) },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'go' });
    const asked = await h.waitFor('tool.requested', (e) => e.needsApproval);
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: asked.toolCall.id, decision: 'deny' });
    await h.api.idle(h.sessionId);
    expect(existsSync(path.join(h.dir, 'outside-run'))).toBe(false);
    expect(toolResults()[0]).toMatch(/denied/);
  });

  describe('the network switch', () => {
    const servers: HttpServer[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
    });
    const serve = async (text: string): Promise<number> => {
      const server = createHttpServer((_req, res) => res.end(text));
      servers.push(server);
      // 127.0.0.2: on the host's loopback, but not a name commands skip the proxy for (NO_PROXY).
      await new Promise<void>((r) => server.listen(0, '127.0.0.2', r));
      return (server.address() as { port: number }).port;
    };

    it('is off by default; switched on, a command reaches the named domains through the proxy and nothing else; the prompt says so', async () => {
      const allowed = await serve('hello from a listed host\n');
      const other = await serve('hello from an unlisted host\n');
      const cmd = `curl -sS --max-time 20 http://127.0.0.2:${allowed}/; curl -sS --max-time 20 http://127.0.0.2:${other}/; echo end`;
      const prompts: string[] = [];
      let turn = 0;
      h = await startHarness({
        settings: { sandbox: { networkDomains: [`127.0.0.2:${allowed}`] } },
        llm: {
          defaultReply: (req) => {
            prompts.push(String(req.messages[0]?.content ?? ''));
            return lastIsTool(req)
              ? { content: `done ${turn}` }
              : { toolCalls: [{ name: 'shell', arguments: { command: cmd } }] };
          },
        },
      });
      await expect(h.api['sandbox.status']({ sessionId: h.sessionId })).resolves.toMatchObject({
        kind: 'bwrap',
        network: false,
      });
      turn = 1;
      await h.turn('try the hosts');
      expect(toolResults()[0]).not.toMatch(/hello from/);
      expect(toolResults()[0]).toMatch(/network is off for this session/);
      const on = await h.api['sandbox.setNetwork']({ sessionId: h.sessionId, allowed: true });
      expect(on).toMatchObject({ kind: 'bwrap', reason: null, network: true });
      turn = 2;
      await h.turn('again');
      expect(toolResults()[1]).toMatch(/hello from a listed host/);
      expect(toolResults()[1]).not.toMatch(/hello from an unlisted host/);
      // The pipeline's last command succeeded: the refusal is still explained.
      expect(toolResults()[1]).toMatch(/Connection blocked by network allowlist/);
      expect(toolResults()[1]).toMatch(/a host the proxy refused/);
      expect(h.events.filter((e) => e.type === 'tool.requested' && e.needsApproval)).toEqual([]);
      expect(prompts.at(-1)).toMatch(
        new RegExp(`network is ON for this session, through a proxy, only to: 127\\.0\\.0\\.2:${allowed}`),
      );
    });
  });
});

describe('without a sandbox', () => {
  it('the sandboxed policy asks, the card and sandbox.status say why, and nothing runs unasked', async () => {
    const prompts: string[] = [];
    h = await startHarness({
      api: { sandbox: { force: 'none' } },
      llm: { defaultReply: scripted([{ command: 'touch ran' }], prompts) },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'go' });
    const asked = await h.waitFor('tool.requested', (e) => e.needsApproval);
    expect(asked.sandbox).toEqual({ state: 'unavailable', reason: 'disabled' });
    expect(existsSync(path.join(h.dir, 'ran'))).toBe(false);
    const state = await h.api['chat.state']({ sessionId: h.sessionId });
    expect(state.pending[0]?.sandbox).toEqual({ state: 'unavailable', reason: 'disabled' });
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: asked.toolCall.id, decision: 'approve' });
    await h.api.idle(h.sessionId);
    expect(existsSync(path.join(h.dir, 'ran'))).toBe(true);
    expect(prompts[0]).toMatch(/no OS sandbox on this machine, so each command asks/);
    await expect(h.api['sandbox.status']({})).resolves.toEqual({
      kind: 'none',
      reason: 'disabled',
      detail: null,
      network: null,
      domains: [...DEFAULT_NETWORK_DOMAINS],
    });
  });

  it('a PATH without bwrap is reported as bwrap_missing', async () => {
    h = await startHarness({
      api: { sandbox: { path: path.join(path.sep, 'nonexistent-tl-bin') }, platform: 'linux' },
    });
    await expect(h.api['sandbox.status']({})).resolves.toMatchObject({ kind: 'none', reason: 'bwrap_missing' });
  });

  it('the auto policy keeps its meaning: commands run without asking, outside the sandbox', async () => {
    const prompts: string[] = [];
    h = await startHarness({
      settings: { approvalPolicy: 'auto' },
      llm: { defaultReply: scripted([{ command: 'echo hi' }], prompts) },
    });
    await h.turn('go');
    const result = h.history().find((m) => m.role === 'tool')!;
    expect(result.meta?.sandboxed).toBeUndefined();
    expect(prompts[0]).toMatch(/run without a sandbox and without asking/);
  });
});
