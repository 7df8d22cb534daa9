// The output schemas of packages/protocol's route declarations against what the real runtime
// answers (real SQLite, fake-llm over HTTP): each answer fits its schema, and the schema keeps
// every field of it (a field the runtime sends but the declaration lacks would be stripped).
import { afterEach, describe, expect, it } from 'vitest';
import { ROUTES, dispatchRoute, type RouteName } from '@threadline/protocol';
import { seqToolModel, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

/** Calls a route through the router with the output check on; returns its data. */
async function checked(route: RouteName, input: unknown): Promise<unknown> {
  const r = await dispatchRoute(h.api, route, input, { checkOutput: true });
  if (!r.ok) throw new Error(`${route}: ${r.error.code}: ${r.error.message}`);
  expect(ROUTES[route].output.parse(r.data), route).toEqual(r.data);
  return r.data;
}

describe('route output schemas against the real runtime', () => {
  it('sessions.create, messages.list after turns with tool calls, compaction.list, settings.get, providers.list', async () => {
    h = await startHarness({ settings: { approvalPolicy: 'auto' }, llm: { defaultReply: seqToolModel('listed') } });
    const created = (await checked('sessions.create', { title: 'Schemas' })) as { id: string };
    expect(created.id).not.toBe(h.sessionId);

    // Enough turns for a compaction to have something to hide.
    for (let t = 1; t <= 4; t++) await h.turn(`count ${t}`);
    const messages = (await checked('messages.list', { sessionId: h.sessionId })) as { role: string }[];
    expect(messages.slice(0, 4).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    expect(await checked('compaction.run', { sessionId: h.sessionId })).toMatchObject({ ok: true });
    const records = (await checked('compaction.list', { sessionId: h.sessionId })) as unknown[];
    expect(records).toHaveLength(1);
    // After the compaction, history holds a summary and its notice: still the declared shape.
    await checked('messages.list', { sessionId: h.sessionId });
    await checked('context.usage', { sessionId: h.sessionId });
    await checked('chat.state', { sessionId: h.sessionId });

    expect(await checked('settings.get', {})).toMatchObject({ approvalPolicy: 'auto' });
    const providers = (await checked('providers.list', {})) as { hasKey: boolean }[];
    expect(providers).toEqual([expect.objectContaining({ hasKey: true })]);
  });
});
