import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_NOTICE_PREFIX, parseNotice } from '@threadline/protocol';
import { lastIsTool, startHarness, type Harness } from './harness';
import { titleFrom } from '../session/title';

let h: Harness;
afterEach(async () => h?.close());

describe('chat turn over real HTTP and SQLite', () => {
  it('streams a reply, stores it and reports usage', async () => {
    h = await startHarness();
    const res = await h.api['chat.send']({ sessionId: h.sessionId, text: 'hello there' });
    expect(res.accepted).toBe(true);
    await h.api.idle(h.sessionId);
    const history = h.history();
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(history[0].id).toBe(res.userMessageId);
    const deltas = h.events
      .filter((e) => e.type === 'message.delta')
      .map((e) => (e.type === 'message.delta' ? e.delta : ''));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(history[1].content);
    const usage = h.events.filter((e) => e.type === 'usage').at(-1);
    expect(usage?.type === 'usage' && usage.usage.total).toBeGreaterThan(0);
    // The turn's last usage event leaves Compact available once the turn is over.
    expect(usage?.type === 'usage' && usage.usage.canCompact).toBe(true);
    // Token counts are cached in the store so a reopened session recounts nothing.
    await h.api['context.usage']({ sessionId: h.sessionId });
    expect(h.history().every((m) => m.tokens !== null)).toBe(true);
  });

  it("keeps a reasoning model's thinking with its answer for the user, never sends it back", async () => {
    h = await startHarness({
      llm: { defaultReply: { reasoning: 'Two plus two is four.', content: '4', chunkSize: 6 } },
    });
    await h.turn('what is 2+2?');
    const thinking = h.events.filter((e) => e.type === 'message.delta' && e.reasoning === true);
    expect(thinking.map((e) => (e.type === 'message.delta' ? e.delta : '')).join('')).toBe('Two plus two is four.');
    const answer = h.history().find((m) => m.role === 'assistant')!;
    expect(answer.content).toBe('4');
    expect(answer.meta?.reasoning).toBe('Two plus two is four.');
    await h.turn('and 3+3?');
    const sent = JSON.stringify(h.llm.chatRequests().at(-1)!.body);
    expect(sent).toContain('what is 2+2?');
    expect(sent).not.toContain('Two plus two');
  });

  it('names a session after its first request, then by a title the model makes after the first reply', async () => {
    h = await startHarness();
    const s = await h.api['sessions.create']({});
    const sent = h.api['chat.send']({
      sessionId: s.id,
      text: '## Fix the flaky login test\n\nIt fails on CI about once a day.',
    });
    // At once, from the first line (the list means something before any reply).
    await sent;
    expect((await h.api['sessions.list']({})).find((x) => x.id === s.id)?.title).toBe('Fix the flaky login test');
    await h.api.idle(s.id);
    // After the first reply: the model's title (fake-llm: "Talk: " + the first four words).
    const titleReq = h.llm.chatRequests().at(-1)!;
    expect(JSON.stringify(titleReq.body)).toContain('Title this conversation in at most six words');
    expect((await h.api['sessions.list']({})).find((x) => x.id === s.id)?.title).toBe('Talk: Fix the flaky login');
    const renamed = h.events.filter(
      (e) => e.type === 'session.updated' && e.session?.title === 'Talk: Fix the flaky login',
    );
    expect(renamed.length).toBeGreaterThan(0);
    // Once only: a second exchange asks for no title.
    const before = h.llm.chatRequests().length;
    await h.api['chat.send']({ sessionId: s.id, text: 'And what about the signup test?' });
    await h.api.idle(s.id);
    expect(h.llm.chatRequests().length).toBe(before + 1);
    expect((await h.api['sessions.list']({})).find((x) => x.id === s.id)?.title).toBe('Talk: Fix the flaky login');
    // A title the user gave stays: the harness session is called 'test'.
    await h.turn('hello');
    expect((await h.api['sessions.list']({})).find((x) => x.id === h.sessionId)?.title).toBe('test');
    expect(titleFrom(`please ${'refactor '.repeat(12)}now`)).toMatch(/^please refactor .{0,50}…$/);
    expect(titleFrom('/compact')).toBe('/compact');
  });

  it('keeps a title the user set while the first reply ran, and the first-line title when the model fails', async () => {
    h = await startHarness({ llm: { defaultReply: { content: 'slow answer '.repeat(20), delayMsPerChunk: 5 } } });
    const s = await h.api['sessions.create']({});
    await h.api['chat.send']({ sessionId: s.id, text: 'plan the release' });
    await h.api['sessions.rename']({ id: s.id, title: 'Release 2.0' });
    await h.api.idle(s.id);
    expect((await h.api['sessions.list']({})).find((x) => x.id === s.id)?.title).toBe('Release 2.0');
    // The title request fails: the first line stays, nothing else happens.
    const t = await h.api['sessions.create']({});
    h.llm.setRules([{ match: { titleRequest: true }, reply: { error: { status: 400 } } }]);
    await h.api['chat.send']({ sessionId: t.id, text: 'write the changelog' });
    await h.api.idle(t.id);
    expect((await h.api['sessions.list']({})).find((x) => x.id === t.id)?.title).toBe('write the changelog');
    const tHistory = await h.api['messages.list']({ sessionId: t.id });
    expect(tHistory.some((m) => m.kind === 'error_notice')).toBe(false);
  });

  it('refuses a second send while a turn runs (busy) and unknown sessions (not_found)', async () => {
    h = await startHarness({ llm: { delayMsPerChunk: 30 } });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'a fairly long message to echo back slowly' });
    await expect(h.api['chat.send']({ sessionId: h.sessionId, text: 'again' })).rejects.toMatchObject({ code: 'busy' });
    await expect(h.api['chat.send']({ sessionId: 'nope', text: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    await h.api.idle(h.sessionId);
  });

  it('runs an auto-approved read-only tool and loops back to the model', async () => {
    h = await startHarness({
      llm: {
        defaultReply: (req) =>
          lastIsTool(req) ? { content: 'listed' } : { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] },
      },
    });
    await h.turn('what is here?');
    const history = h.history();
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(history[2].content).toContain('threadline.db');
    expect(history[2].meta?.status).toBe('ok');
    const requested = h.events.find((e) => e.type === 'tool.requested');
    expect(requested?.type === 'tool.requested' && requested.needsApproval).toBe(false);
    expect(h.events.some((e) => e.type === 'tool.finished' && e.status === 'ok')).toBe(true);
  });

  it('turns a malformed tool-call argument string into an error result the model reads', async () => {
    h = await startHarness({
      llm: {
        defaultReply: (req) =>
          lastIsTool(req)
            ? { content: 'I see the error' }
            : { toolCalls: [{ name: 'read_file', arguments: '{"path": "a.txt"' }] },
      },
    });
    await h.turn('read it');
    const tool = h.history().find((m) => m.role === 'tool');
    expect(tool?.content).toMatch(/not valid JSON/);
    expect(tool?.meta?.status).toBe('error');
    // The model got the error as a tool result and answered.
    const second = h.llm.chatRequests()[1].body as { messages: { role: string; content: string }[] };
    expect(second.messages.at(-1)?.content).toMatch(/not valid JSON/);
    expect(h.history().at(-1)?.content).toBe('I see the error');
  });

  it('stops a doom loop: the same call with the same arguments 3 times in a row', async () => {
    h = await startHarness({
      llm: { defaultReply: () => ({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] }) },
    });
    await h.turn('loop forever');
    const history = h.history();
    expect(h.llm.chatRequests().length).toBe(3);
    const notice = history.at(-1);
    expect(notice?.kind).toBe('error_notice');
    // Structured, so the renderer says it in the user's language.
    expect(notice?.content?.startsWith(ERROR_NOTICE_PREFIX)).toBe(true);
    expect(parseNotice(notice?.content)).toEqual({
      type: 'error',
      payload: { version: 'v1', type: 'doom_loop', tool: 'list_dir', limit: 3 },
    });
    // Every call has its result, so the history stays pair-safe.
    const calls = history.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
    const results = history.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(results).toEqual(calls);
  });

  it('the doom-loop notice names the repeated call, not the last call of the step', async () => {
    let n = 0;
    h = await startHarness({
      llm: {
        defaultReply: () =>
          ++n < 3
            ? { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] }
            : {
                toolCalls: [
                  { name: 'list_dir', arguments: { path: '.' } },
                  { name: 'read_file', arguments: { path: 'x.txt' } },
                ],
              },
      },
    });
    await h.turn('loop');
    const parsed = parseNotice(h.history().at(-1)?.content);
    expect(parsed?.type === 'error' && parsed.payload).toMatchObject({ type: 'doom_loop', tool: 'list_dir' });
  });

  it('a session from before working folders shows the folder its turn works in when the turn starts', async () => {
    h = await startHarness();
    const old = h.store.sessions.create('older session');
    expect(old.workingFolder).toBe('');
    const listed = (await h.api['sessions.list']({})).find((s) => s.id === old.id)!;
    expect(listed.workingFolder).not.toBe('');
    await h.api['chat.send']({ sessionId: old.id, text: 'hello' });
    await h.api.idle(old.id);
    const started = h.events.find((e) => e.type === 'session.updated' && e.sessionId === old.id && e.busy);
    expect(started?.type === 'session.updated' && started.session?.workingFolder).toBe(listed.workingFolder);
  });
});
