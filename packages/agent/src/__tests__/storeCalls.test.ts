// How often one turn reads and writes the store: a spy around the real store (a real SQLite file),
// real HTTP to fake-llm, a real shell command. One turn with one shell call and two model calls:
// exactly seven store calls (eight with CFPM's memory refresh), each one named.
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

/** The turn's store calls, and what the turn stored (read outside the count). */
async function countedTurn(
  settings: SettingsPatch,
): Promise<{ counts: Map<string, number>; calls: number; stored: string[]; notices: number }> {
  const spy = storeSpy();
  h = await startHarness({
    // The shell runs without asking (the approval is not what is counted).
    settings: { approvalPolicy: 'auto', ...settings },
    wrapStore: spy.wrap,
    llm: {
      defaultReply: (req) =>
        lastIsTool(req)
          ? { content: 'the folder holds what echo said' }
          : { toolCalls: [{ name: 'shell', arguments: { command: 'echo counted' } }] },
    },
  });
  // A first turn opens the session (its snapshot); the turn counted is the next one.
  await h.turn('warm up');
  const before = h.llm.chatRequests().length;
  const callsBefore = modelCalls();
  const messagesBefore = h.history().length;
  spy.on.value = true;
  await h.turn('what does echo say?');
  spy.on.value = false;
  // Two model calls and one shell call that really ran.
  expect(h.llm.chatRequests().length - before).toBe(2);
  const added = h.history().slice(messagesBefore);
  expect(added.filter((m) => m.role === 'tool').at(-1)?.content).toContain('counted');
  return {
    counts: spy.counts,
    calls: modelCalls() - callsBefore,
    stored: added.filter((m) => m.kind === 'normal').map((m) => m.role),
    notices: added.filter((m) => m.kind === 'runtime_notice').length,
  };
}

/** The session.updated that ended the turn says the session's row as the store has it now. */
function expectLastUpdateIsStored(): void {
  const last = h.events.filter((e) => e.type === 'session.updated' && e.sessionId === h.sessionId).at(-1);
  expect(last?.type === 'session.updated' && last.busy).toBe(false);
  const stored = h.store.sessions.get(h.sessionId)!;
  expect(last?.type === 'session.updated' && last.session).toMatchObject({
    title: stored.title,
    updatedAt: stored.updatedAt,
    messageCount: stored.messageCount,
  });
}

/** The session's model calls as stored. */
function modelCalls(): number {
  return h.store.usage.calls(h.sessionId).groups.reduce((n, g) => n + g.calls, 0);
}

describe('store calls of one turn (one shell call, two model calls)', () => {
  for (const [name, settings, notices, commits] of [
    ['default strategy', {}, 0, 3],
    // A memory refresh at the turn start and after each of the two steps, each with its notice;
    // the turn start's refresh is one more commit.
    ['cfpm_memory_v1', { compaction: { strategy: 'cfpm_memory_v1' } }, 3, 4],
  ] as const) {
    it(`are exactly these: ${name}`, async () => {
      const { counts, calls, stored, notices: shown } = await countedTurn(settings as SettingsPatch);
      const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1]);
      console.log(`store calls, ${name}: ${total(counts)}`, JSON.stringify(sorted));
      // Every read and write of the turn: its rows read once (turns.load), the user message, the
      // first call's tokens (stored before the tool runs), the running process recorded and
      // removed, the step (assistant + tool result), the answer with its call's tokens, (CFPM)
      // the turn start's memory refresh. No small row read twice: the session's row comes back
      // with each step (turns.commit), so no sessions.get.
      expect(Object.fromEntries(counts)).toEqual({
        'turns.load': 1,
        'turns.commit': commits,
        'usage.record': 1,
        'processes.add': 1,
        'processes.remove': 1,
      });
      expect(total(counts)).toBe(commits + 4);
      expectLastUpdateIsStored();
      // What the turn must write, written: the user message, the step, the answer; both calls.
      expect(stored).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(calls).toBe(2);
      expect(shown).toBe(notices);
    });
  }
});

describe("the turn's small rows", () => {
  it('a rename while a turn waits on a card is what the update that ends the turn says', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'ask' },
      llm: {
        defaultReply: (req) =>
          lastIsTool(req)
            ? { content: 'done' }
            : { toolCalls: [{ name: 'shell', arguments: { command: 'echo renamed-meanwhile' } }] },
      },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'run it' });
    const card = await h.waitFor('tool.requested');
    await h.api['sessions.rename']({ id: h.sessionId, title: 'Renamed mid-turn' });
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: card.toolCall.id, decision: 'approve' });
    await h.api.idle(h.sessionId);
    expect(h.store.sessions.get(h.sessionId)?.title).toBe('Renamed mid-turn');
    expectLastUpdateIsStored();
  });

  it('a notice stored after the last step (a provider error) is counted in the update that ends the turn', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'auto' },
      llm: {
        defaultReply: (req) =>
          lastIsTool(req)
            ? { error: { status: 400, message: 'this request is refused' } }
            : { toolCalls: [{ name: 'shell', arguments: { command: 'echo before-the-error' } }] },
      },
    });
    await h.turn('run it');
    expect(h.history().at(-1)?.kind).toBe('error_notice');
    expectLastUpdateIsStored();
  });

  it("a rule saved on the first card of a turn lets the same turn's next call run without asking", async () => {
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
      // `echo …`: the program with any arguments.
      remember: { scope: 'session', matches: [first.rules!.parts[0]!.options.at(-1)!] },
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
