// How often one turn reads and writes the store: a spy around the real store (a real SQLite file),
// real HTTP to fake-llm, a real shell command. One turn with one shell call and two model calls.
import { afterEach, describe, expect, it } from 'vitest';
import type { SettingsPatch } from '@threadline/protocol';
import type { Store } from '@threadline/store';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

/** The store with every repository method call counted (`repo.method`), while `on` is set. */
function storeSpy(): { wrap: (s: Store) => Store; counts: Map<string, number>; on: { value: boolean } } {
  const counts = new Map<string, number>();
  const on = { value: false };
  const count = (name: string): void => {
    if (on.value) counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  const wrap = (store: Store): Store =>
    new Proxy(store, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value === 'function') {
          const fn = value as (...a: unknown[]) => unknown;
          return (...args: unknown[]) => {
            count(String(prop));
            return fn.apply(target, args);
          };
        }
        if (typeof value !== 'object' || value === null) return value;
        const repo = value as Record<string, unknown>;
        return new Proxy(repo, {
          get(r, method) {
            const m = r[method as string];
            if (typeof m !== 'function') return m;
            return (...args: unknown[]) => {
              count(`${String(prop)}.${String(method)}`);
              return (m as (...a: unknown[]) => unknown).apply(r, args);
            };
          },
        });
      },
    });
  return { wrap, counts, on };
}

const total = (counts: Map<string, number>): number => [...counts.values()].reduce((a, b) => a + b, 0);

/** What the turn writes, and what it reads per model call or per memory refresh: not small rows. */
const NOT_SMALL_ROWS = new Set([
  'messages.append',
  'messages.setTokens',
  'usage.record',
  // The cost event after each model call sums the session's spending (turn/cost.ts).
  'usage.sessionGroups',
  'usage.prices',
  'usage.lastCallAt',
  'processes.add',
  'processes.remove',
  // A memory refresh (CFPM) reads the candidate pool and stores its outcome, once per refresh.
  'memory.candidates',
  'memory.refresh',
]);

async function countedTurn(settings: SettingsPatch): Promise<Map<string, number>> {
  const spy = storeSpy();
  h = await startHarness({
    settings,
    wrapStore: spy.wrap,
    llm: {
      defaultReply: (req) =>
        lastIsTool(req)
          ? { content: 'the folder holds what echo said' }
          : { toolCalls: [{ name: 'shell', arguments: { command: 'echo counted' } }] },
    },
  });
  // The shell runs without asking in this session (the approval is not what is counted).
  await h.api['approvals.set']({ sessionId: h.sessionId, toolName: 'shell', policy: 'auto' });
  // A first turn opens the session (its snapshot); the turn counted is the next one.
  await h.turn('warm up');
  const before = h.llm.chatRequests().length;
  spy.on.value = true;
  await h.turn('what does echo say?');
  spy.on.value = false;
  // Two model calls and one shell call that really ran.
  expect(h.llm.chatRequests().length - before).toBe(2);
  const result = h
    .history()
    .filter((m) => m.role === 'tool')
    .at(-1);
  expect(result?.content).toContain('counted');
  return spy.counts;
}

describe('store calls of one turn (one shell call, two model calls)', () => {
  for (const [name, settings] of [
    ['default strategy', {}],
    ['cfpm_memory_v1', { compaction: { strategy: 'cfpm_memory_v1' } }],
  ] as const) {
    it(`stay few: ${name}`, async () => {
      const counts = await countedTurn(settings as SettingsPatch);
      const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1]);
      const small = sorted.filter(([call]) => !NOT_SMALL_ROWS.has(call));
      console.log(
        `store calls, ${name}: ${total(counts)}; small rows: ${total(new Map(small))}`,
        JSON.stringify(sorted),
      );
      // The turn's small rows (the session, the settings, the profile and its key, the approval
      // override, the session's instructions, the MCP servers, the branch leaf): at most ten reads.
      expect(total(new Map(small))).toBeLessThanOrEqual(10);
      // Each once: the session row also at the two moments it changes (busy after the user
      // message is stored, idle after the turn), for session.updated.
      for (const [call, n] of small) expect(n, call).toBeLessThanOrEqual(call === 'sessions.get' ? 3 : 1);
      // What the turn must write, written: the user message, the step, the answer.
      expect(counts.get('messages.append')).toBeGreaterThanOrEqual(3);
      expect(counts.get('usage.record')).toBe(2);
    });
  }
});

describe("the turn's small rows", () => {
  it('an "always" on the first card of a turn lets the same turn\'s next call run without asking', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'ask' },
      llm: {
        defaultReply: (req) => {
          const results = req.messages.filter((m) => m.role === 'tool').length;
          return results < 2
            ? { toolCalls: [{ name: 'shell', arguments: { command: `echo call-${results}` } }] }
            : { content: 'both ran' };
        },
      },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'run two commands' });
    const first = await h.waitFor('tool.requested');
    expect(first.needsApproval).toBe(true);
    await h.api['chat.approve']({
      sessionId: h.sessionId,
      toolCallId: first.toolCall.id,
      decision: 'approve',
      remember: true,
    });
    await h.api.idle(h.sessionId);
    const requested = h.events.filter((e) => e.type === 'tool.requested');
    expect(requested.map((e) => e.type === 'tool.requested' && e.needsApproval)).toEqual([true, false]);
    const results = h.history().filter((m) => m.role === 'tool');
    expect(results.map((m) => m.content)).toEqual([
      expect.stringContaining('call-0'),
      expect.stringContaining('call-1'),
    ]);
  });
});
