import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatRequestView, FakeReply } from '@threadline/fake-llm';
import { BUILTIN_TOOLS, ToolRegistry, TURN_ABORTED_TEXT, type ToolDefinition } from '../index';
import { toolParameters } from '../tools/schema';
import * as z from 'zod';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

const shellOnce =
  (command: string) =>
  (req: ChatRequestView): FakeReply =>
    lastIsTool(req)
      ? { content: `after: ${String(req.messages.at(-1)?.content).slice(0, 40)}` }
      : { toolCalls: [{ name: 'shell', arguments: { command } }] };

describe('cancel', () => {
  it('returns whatever a tool is doing: a tool that never ends and ignores the signal (issue 35)', async () => {
    let started = false;
    let sawAbort = false;
    const stuck: ToolDefinition<Record<string, never>> = {
      name: 'stuck',
      description: 'Never returns.',
      parameters: toolParameters(z.object({})),
      readOnly: true,
      args: z.object({}) as unknown as z.ZodType<Record<string, never>>,
      run: (_args, ctx) => {
        started = true;
        ctx.signal.addEventListener('abort', () => (sawAbort = true));
        return new Promise(() => {});
      },
    };
    h = await startHarness({
      api: { tools: new ToolRegistry([...BUILTIN_TOOLS, stuck]) },
      llm: {
        defaultReply: (req) =>
          req.lastUserText === 'hang' ? { toolCalls: [{ name: 'stuck', arguments: {} }] } : { content: 'after' },
      },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'hang' });
    await vi.waitFor(() => expect(started).toBe(true), { timeout: 20_000 });
    expect(await h.api['chat.cancel']({ sessionId: h.sessionId })).toEqual({ cancelled: true });
    expect(sawAbort).toBe(true);
    const history = h.history();
    const tool = history.find((m) => m.role === 'tool')!;
    expect(tool.meta?.status).toBe('aborted');
    expect(tool.content).toMatch(/stopped the turn while this tool ran/);
    expect(history.at(-1)!.kind).toBe('turn_aborted');
    // The session is free: the next turn runs.
    await h.turn('hello again');
    expect(h.history().at(-1)!.role).toBe('assistant');
  });

  it('stops the stream, keeps the partial answer and leaves a turn_aborted marker', async () => {
    const full = 'word '.repeat(200);
    h = await startHarness({ llm: { defaultReply: { content: full, delayMsPerChunk: 20, chunkSize: 5 } } });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'talk for a while' });
    // Cancelled mid-stream: after a few deltas, long before the 200 words are through.
    await vi.waitFor(() => expect(h.events.filter((e) => e.type === 'message.delta').length).toBeGreaterThan(2), {
      timeout: 20_000,
    });
    expect(await h.api['chat.cancel']({ sessionId: h.sessionId })).toEqual({ cancelled: true });
    const history = h.history();
    expect(history.map((m) => m.kind)).toEqual(['normal', 'normal', 'turn_aborted']);
    const partial = history[1];
    expect(partial.role).toBe('assistant');
    expect(partial.meta?.partial).toBe(true);
    expect((partial.content ?? '').length).toBeGreaterThan(0);
    expect((partial.content ?? '').length).toBeLessThan(full.length);
    expect(history[2].content).toBe(TURN_ABORTED_TEXT);
    // The marker is part of what the model sees next; the aborted HTTP stream was closed.
    expect(history[2].visibility.agent).toBe(true);
    await vi.waitFor(() => expect(h.llm.chatRequests()[0].clientClosed).toBe(true));
    // The session accepts a new turn afterwards.
    expect(await h.api['chat.cancel']({ sessionId: h.sessionId })).toEqual({ cancelled: false });
  });

  it('kills a running tool and records it as aborted', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'auto' },
      llm: { defaultReply: shellOnce('touch started; sleep 30; echo never') },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'wait a long time' });
    await h.waitFor('tool.requested');
    // The command is running once its marker exists (a condition, not a clock).
    await vi.waitFor(() => expect(existsSync(path.join(h.dir, 'started'))).toBe(true), { timeout: 20_000 });
    await h.api['chat.cancel']({ sessionId: h.sessionId });
    const history = h.history();
    const tool = history.find((m) => m.role === 'tool')!;
    expect(tool.meta?.status).toBe('aborted');
    expect(tool.content).not.toContain('never');
    expect(history.at(-1)?.kind).toBe('turn_aborted');
    // The call and its result are committed together: the pair is whole.
    expect(history.find((m) => m.role === 'assistant')?.tool_calls?.[0].id).toBe(tool.tool_call_id);
    expect(h.events.some((e) => e.type === 'tool.finished' && e.status === 'aborted')).toBe(true);
  });
});

describe('approvals', () => {
  it('cancel while a call waits for approval: nothing runs, the call is aborted', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'ask' },
      llm: { defaultReply: shellOnce('touch should-not-exist') },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'run it' });
    const req = await h.waitFor('tool.requested');
    expect(req.needsApproval).toBe(true);
    await h.api['chat.cancel']({ sessionId: h.sessionId });
    const history = h.history();
    expect(history.find((m) => m.role === 'tool')?.meta?.status).toBe('aborted');
    expect(history.at(-1)?.kind).toBe('turn_aborted');
    expect(existsSync(path.join(h.dir, 'should-not-exist'))).toBe(false);
    await expect(
      h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: req.toolCall.id, decision: 'approve' }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('asks before shell under the ask policy and runs it when approved', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'ask' },
      llm: { defaultReply: shellOnce('echo approved-run') },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'run it' });
    const req = await h.waitFor('tool.requested');
    expect(req.needsApproval).toBe(true);
    // Nothing runs while the user decides: no process started, no result stored (a call that ran
    // without asking is caught by the denied case below: its file would exist).
    expect(h.store.processes.list()).toEqual([]);
    expect(h.history().some((m) => m.role === 'tool')).toBe(false);
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: req.toolCall.id, decision: 'approve' });
    await h.api.idle(h.sessionId);
    const tool = h.history().find((m) => m.role === 'tool')!;
    expect(tool.content).toContain('approved-run');
    expect(tool.meta?.status).toBe('ok');
    expect(h.history().at(-1)?.content).toContain('after:');
  });

  it('a denied call becomes a result the model reads, and the turn goes on', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'ask' },
      llm: { defaultReply: shellOnce('touch should-not-exist') },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'run it' });
    const req = await h.waitFor('tool.requested');
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: req.toolCall.id, decision: 'deny' });
    await h.api.idle(h.sessionId);
    const tool = h.history().find((m) => m.role === 'tool')!;
    expect(tool.meta?.status).toBe('denied');
    expect(tool.content).toMatch(/denied/);
    expect(h.history().at(-1)?.content).toContain('after: denied');
    expect(h.events.some((e) => e.type === 'tool.finished' && e.status === 'denied')).toBe(true);
  });

  it('a denial with a reason: the reason is the result the model reads next', async () => {
    h = await startHarness({ settings: { approvalPolicy: 'ask' }, llm: { defaultReply: shellOnce('rm -rf build') } });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'clean up' });
    const req = await h.waitFor('tool.requested');
    await h.api['chat.approve']({
      sessionId: h.sessionId,
      toolCallId: req.toolCall.id,
      decision: 'deny',
      reason: 'keep build/, delete only dist/',
    });
    await h.api.idle(h.sessionId);
    const tool = h.history().find((m) => m.role === 'tool')!;
    expect(tool.meta?.status).toBe('denied');
    expect(tool.content).toBe('denied: the user did not allow this tool call and said: keep build/, delete only dist/');
    // The next request carries it as the call's result.
    const next = (
      h.llm.chatRequests().at(-1)!.body as { messages: { role: string; tool_call_id?: string; content: string }[] }
    ).messages;
    expect(next.at(-1)).toMatchObject({ role: 'tool', tool_call_id: req.toolCall.id });
    expect(next.at(-1)!.content).toContain('keep build/, delete only dist/');
  });

  it('deny policy refuses without asking; unknown approvals are not_found', async () => {
    h = await startHarness({ settings: { approvalPolicy: 'deny' }, llm: { defaultReply: shellOnce('echo nope') } });
    await h.turn('run it');
    const req = h.events.find((e) => e.type === 'tool.requested');
    expect(req?.type === 'tool.requested' && req.needsApproval).toBe(false);
    expect(h.history().find((m) => m.role === 'tool')?.meta?.status).toBe('denied');
    await expect(
      h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: 'call_x', decision: 'approve' }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('a rule remembered on a card', () => {
  it('"Allow … in this session" answers this call and every later call it matches in this session, not in others', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'ask' },
      llm: { defaultReply: shellOnce('echo remembered') },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'first' });
    const first = await h.waitFor('tool.requested');
    expect(first.needsApproval).toBe(true);
    const part = first.rules!.parts[0]!;
    const offered = part.options[part.preferred]!;
    // The program and the sub-command-like words after it, followed by anything; narrower and wider beside it.
    expect(offered).toEqual({
      kind: 'command',
      tool: 'shell',
      words: ['echo', 'remembered'],
      more: true,
      sandbox: 'also_outside',
    });
    expect(part.options.map((o) => o.kind === 'command' && [o.words.join(' '), o.more])).toEqual([
      ['echo remembered', false],
      ['echo remembered', true],
      ['echo', true],
    ]);
    await h.api['chat.approve']({
      sessionId: h.sessionId,
      toolCallId: first.toolCall.id,
      decision: 'approve',
      remember: { scope: 'session', matches: [offered] },
    });
    await h.api.idle(h.sessionId);
    const [rule] = await h.api['rules.list']({ sessionId: h.sessionId });
    expect(rule).toMatchObject({
      decision: 'allow',
      match: offered,
      scope: { kind: 'session', sessionId: h.sessionId },
      origin: { kind: 'card', toolCallId: first.toolCall.id },
    });
    h.events.length = 0;
    await h.turn('second');
    const second = h.events.find((e) => e.type === 'tool.requested');
    expect(second?.type === 'tool.requested' && second.needsApproval).toBe(false);
    const results = h.history().filter((m) => m.role === 'tool');
    expect(results.every((m) => m.meta?.status === 'ok')).toBe(true);
    // The call that ran because of the rule names it; the first (approved on its card) does not.
    expect(results[0]!.meta?.rule).toBeUndefined();
    expect(results[1]!.meta?.rule).toMatchObject({ decision: 'allow', rules: [{ id: rule!.id }] });
    expect((await h.api['rules.list']({ sessionId: h.sessionId }))[0]!.hits).toBe(1);
    // Another session still asks.
    const other = await h.api['sessions.create']({});
    expect(await h.api['rules.list']({ sessionId: other.id })).toEqual([]);
    expect(await h.api['rules.remove']({ id: rule!.id })).toEqual({ removed: true });
    expect(await h.api['rules.list']({})).toEqual([]);
  });
});
