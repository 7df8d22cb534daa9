import { afterEach, describe, expect, it } from 'vitest';
import type { RequestMessage } from '@threadline/fake-llm';
import { startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

const roles = (msgs: RequestMessage[]) =>
  msgs.filter((m) => m.role !== 'system').map((m) => `${m.role}:${String(m.content)}`);
const lastRequest = (h: Harness) => {
  const body = h.llm.chatRequests().at(-1)!.body as { messages: RequestMessage[] };
  return body.messages;
};

describe('branches: edit, regenerate, retry', () => {
  it('an edit answers on a new branch the model sees alone; switching back shows the old one', async () => {
    h = await startHarness();
    await h.turn('first question');
    await h.turn('second question');
    const [, , q2] = (await h.api['messages.list']({ sessionId: h.sessionId })).map((m) => m);
    const res = await h.api['chat.edit']({ sessionId: h.sessionId, messageId: q2!.id, text: 'second, reworded' });
    await h.api.idle(h.sessionId);
    expect(roles(lastRequest(h))).toEqual([
      'user:first question',
      'assistant:You said: first question',
      'user:second, reworded',
    ]);
    const list = await h.api['messages.list']({ sessionId: h.sessionId });
    expect(list.map((m) => m.content)).toEqual([
      'first question',
      'You said: first question',
      'second, reworded',
      'You said: second, reworded',
    ]);
    expect(list[2]!.id).toBe(res.userMessageId);
    expect(list[2]!.versions).toMatchObject({ index: 2, count: 2, ids: [q2!.id, res.userMessageId] });
    const back = await h.api['branches.switch']({ sessionId: h.sessionId, messageId: q2!.id });
    expect(back.map((m) => m.content)).toEqual([
      'first question',
      'You said: first question',
      'second question',
      'You said: second question',
    ]);
    expect(back[2]!.versions).toMatchObject({ index: 1, count: 2 });
    // What is sent next follows the branch shown.
    await h.turn('third');
    expect(roles(lastRequest(h)).slice(-3)).toEqual([
      'user:second question',
      'assistant:You said: second question',
      'user:third',
    ]);
    // Export: the branch shown by default, every branch on request.
    const active = await h.api['sessions.export']({ id: h.sessionId, format: 'markdown' });
    expect(active.content).toContain('second question');
    expect(active.content).not.toContain('second, reworded');
    const all = await h.api['sessions.export']({ id: h.sessionId, format: 'markdown', branches: 'all' });
    expect(all.content).toContain('second, reworded');
    expect(all.content).toContain('Another version from here');
  });

  it('regenerate makes a second version of the last reply from the same request', async () => {
    h = await startHarness();
    h.llm.setRules([], (req) => ({ content: `answer #${req.index}` }));
    await h.turn('tell me something');
    const res = await h.api['chat.regenerate']({ sessionId: h.sessionId });
    await h.api.idle(h.sessionId);
    const list = await h.api['messages.list']({ sessionId: h.sessionId });
    expect(list.map((m) => m.content)).toEqual(['tell me something', 'answer #1']);
    expect(list[0]!.id).toBe(res.userMessageId);
    expect(list[1]!.versions).toMatchObject({ index: 2, count: 2 });
    expect(roles(lastRequest(h))).toEqual(['user:tell me something']);
    const first = await h.api['branches.switch']({ sessionId: h.sessionId, messageId: list[1]!.versions!.ids[0]! });
    expect(first.map((m) => m.content)).toEqual(['tell me something', 'answer #0']);
  });

  it('retry after a provider error resends the same user message, never a copy', async () => {
    h = await startHarness();
    h.llm.enqueue({ error: { status: 400, message: 'bad luck' } });
    await h.turn('please answer');
    const failed = await h.api['messages.list']({ sessionId: h.sessionId });
    expect(failed.map((m) => m.kind)).toEqual(['normal', 'error_notice']);
    const res = await h.api['chat.retry']({ sessionId: h.sessionId });
    await h.api.idle(h.sessionId);
    expect(res.userMessageId).toBe(failed[0]!.id);
    const list = await h.api['messages.list']({ sessionId: h.sessionId });
    expect(list.map((m) => `${m.role}:${m.content}`)).toEqual([
      'user:please answer',
      'assistant:You said: please answer',
    ]);
    // One user message in the whole history, and in what the model received.
    expect(h.store.messages.listAll(h.sessionId).filter((m) => m.role === 'user' && m.kind === 'normal')).toHaveLength(
      1,
    );
    expect(roles(lastRequest(h))).toEqual(['user:please answer']);
    // The failed attempt is kept as the other version of the reply.
    expect(list[1]!.versions).toMatchObject({ index: 2, count: 2 });
  });

  it('refuses edits of other messages and a regenerate with nothing to answer', async () => {
    h = await startHarness();
    await expect(h.api['chat.regenerate']({ sessionId: h.sessionId })).rejects.toMatchObject({ code: 'not_found' });
    await h.turn('hi');
    const [, answer] = await h.api['messages.list']({ sessionId: h.sessionId });
    await expect(
      h.api['chat.edit']({ sessionId: h.sessionId, messageId: answer!.id, text: 'x' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    const other = await h.api['sessions.create']({});
    await expect(h.api['branches.switch']({ sessionId: other.id, messageId: answer!.id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('searches every session, Chinese included', async () => {
    h = await startHarness();
    await h.turn('run seq 5 please');
    const other = await h.api['sessions.create']({ title: 'zh' });
    await h.api['chat.send']({ sessionId: other.id, text: '请检查缓存命中率' });
    await h.api.idle(other.id);
    const hits = await h.api['search.messages']({ query: 'seq 5' });
    expect(hits.map((x) => x.sessionId)).toEqual([h.sessionId, h.sessionId]);
    expect((await h.api['search.messages']({ query: '命中率' })).map((x) => x.sessionTitle)).toEqual(['zh', 'zh']);
  });
});
