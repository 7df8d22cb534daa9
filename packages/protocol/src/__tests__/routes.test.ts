import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import {
  ROUTE_DOMAINS,
  ROUTE_NAMES,
  ROUTES,
  MAX_INPUT_ISSUES,
  type AppApi,
  type Rule,
  type ChatState,
  type CompactionRecord,
  type McpServerInfo,
  type RouteInput,
  type RouteName,
  type RouteOutput,
  type RpcResult,
  type SearchHit,
  type SessionSummary,
  type StoredMessage,
} from '../index';
import { dispatchRoute } from '../router';

const session: SessionSummary = {
  id: 's1',
  title: 'One',
  createdAt: 1,
  updatedAt: 2,
  messageCount: 0,
  workingFolder: '/home/u/Threadline',
};

/** Only the routes a test calls; the router never reaches the others. */
function apiDouble(impl: Partial<AppApi>): AppApi {
  return impl as AppApi;
}

const issuesOf = (r: RpcResult<unknown>) => (r.ok ? undefined : r.error.details?.issues);

describe('route declarations', () => {
  it('declare every route once, in one domain file, with an input and an output schema', () => {
    const names = Object.values(ROUTE_DOMAINS).flatMap((d) => Object.keys(d));
    // A name in two domains would be silently overwritten by the merge: the counts would differ.
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...ROUTE_NAMES].sort());
    expect(Object.keys(ROUTE_DOMAINS)).toEqual(
      expect.arrayContaining(['sessions', 'chat', 'compaction', 'memory', 'settings', 'providers']),
    );
    for (const name of ROUTE_NAMES) {
      const def = ROUTES[name] as { input: unknown; output: unknown };
      expect(def.input, name).toBeInstanceOf(z.core.$ZodType);
      expect(def.output, name).toBeInstanceOf(z.core.$ZodType);
    }
  });

  it('output schemas are real schemas (no z.custom placeholder), so they can check an answer', () => {
    for (const name of ROUTE_NAMES) {
      // toJSONSchema refuses custom and transformed types: every output is described field by field.
      const json = z.toJSONSchema(ROUTES[name].output, { io: 'output' });
      expect(json, name).toBeTypeOf('object');
    }
    expect(ROUTES['sessions.create'].output.safeParse(session).success).toBe(true);
    expect(ROUTES['sessions.create'].output.safeParse({ ...session, messageCount: 'many' }).success).toBe(false);
  });

  it('AppApi, RouteName, RouteInput and RouteOutput are derived from the declarations', () => {
    type Routes = typeof ROUTES;
    expectTypeOf<RouteName>().toEqualTypeOf<keyof Routes>();
    expectTypeOf<AppApi>().toEqualTypeOf<{
      [R in keyof Routes]: (input: z.output<Routes[R]['input']>) => Promise<z.output<Routes[R]['output']>>;
    }>();
    // The same shapes as the hand-written maps had: no consumer changes.
    expectTypeOf<RouteOutput<'sessions.create'>>().toEqualTypeOf<SessionSummary>();
    expectTypeOf<RouteOutput<'messages.list'>>().toEqualTypeOf<StoredMessage[]>();
    expectTypeOf<RouteOutput<'chat.state'>>().toEqualTypeOf<ChatState>();
    expectTypeOf<RouteOutput<'compaction.list'>>().toEqualTypeOf<CompactionRecord[]>();
    expectTypeOf<RouteOutput<'rules.list'>>().toEqualTypeOf<Rule[]>();
    expectTypeOf<RouteOutput<'search.messages'>>().toEqualTypeOf<SearchHit[]>();
    expectTypeOf<RouteOutput<'mcp.servers.list'>>().toEqualTypeOf<{ servers: McpServerInfo[] }>();
    expectTypeOf<RouteOutput<'chat.send'>>().toEqualTypeOf<{ accepted: true; userMessageId: string }>();
    expectTypeOf<RouteOutput<'providers.test'>>().toEqualTypeOf<{
      ok: boolean;
      message: string;
      latencyMs: number | null;
      problem?: 'missing_key' | 'auth' | 'unreachable' | 'unknown_model' | 'other';
      offered?: string[];
    }>();
    expectTypeOf<RouteInput<'sessions.create'>>().toEqualTypeOf<
      { title?: string; workingFolder?: string; createFolder?: boolean } | undefined
    >();
    expectTypeOf<Parameters<AppApi['sessions.rename']>[0]>().toEqualTypeOf<{ id: string; title: string }>();
  });
});

describe('dispatchRoute', () => {
  const api = apiDouble({
    'sessions.rename': async ({ title }) => ({ ...session, title }),
    'settings.set': async () => {
      throw new Error('not reached');
    },
    'mcp.servers.sessionDisable': async () => ({ disabled: [] }),
  });

  it('answers invalid input with one sentence and the zod issues as data, with their paths', async () => {
    const r = await dispatchRoute(api, 'sessions.rename', { id: 's1', title: '' });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/^title: /) },
    });
    expect(issuesOf(r)).toEqual([{ path: ['title'], code: 'too_small', message: expect.any(String) }]);
    const nested = await dispatchRoute(api, 'settings.set', { patch: { compaction: { autoThreshold: 'high' } } });
    expect(issuesOf(nested)).toEqual([
      { path: ['patch', 'compaction', 'autoThreshold'], code: 'invalid_type', message: expect.any(String) },
    ]);
    // The result crosses IPC and HTTP as JSON: nothing in it may be lost on the way.
    expect(JSON.parse(JSON.stringify(nested))).toEqual(nested);
  });

  it('caps the issues it returns', async () => {
    const ids = Array.from({ length: 60 }, () => '');
    const r = await dispatchRoute(api, 'mcp.servers.sessionDisable', { sessionId: 's1', ids, disabled: true });
    const issues = issuesOf(r) ?? [];
    expect(issues).toHaveLength(MAX_INPUT_ISSUES);
    expect(issues[0]).toMatchObject({ path: ['ids', 0], code: 'too_small' });
    expect(r.ok === false && r.error.message.split('; ')).toHaveLength(5);
  });

  it('checks an answer against the output schema when asked to', async () => {
    const drifted = apiDouble({
      // An implementation that forgot a field of its declared output.
      'sessions.rename': async ({ id, title }) => ({ id, title }) as unknown as SessionSummary,
    });
    const input = { id: 's1', title: 'New' };
    expect(await dispatchRoute(drifted, 'sessions.rename', input)).toMatchObject({ ok: true });
    const checked = await dispatchRoute(drifted, 'sessions.rename', input, { checkOutput: true });
    expect(checked).toMatchObject({
      ok: false,
      error: { code: 'internal', message: expect.stringMatching(/sessions\.rename/) },
    });
    expect(issuesOf(checked)?.map((i) => i.path)).toContainEqual(['createdAt']);
    expect(await dispatchRoute(api, 'sessions.rename', input, { checkOutput: true })).toEqual({
      ok: true,
      data: { ...session, title: 'New' },
    });
  });
});
