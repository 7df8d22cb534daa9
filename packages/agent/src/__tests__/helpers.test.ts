// Helpers (the delegate tool, issue 39) through the whole runtime: createAppApi, a real SQLite
// file, fake-llm over HTTP. Each helper is a session of its own with a context of its own.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppEvent, HelperSummary } from '@threadline/protocol';
import { startHarness, type Harness } from './harness';
import {
  delegatingModel,
  helperRequests,
  isHelperRequest,
  requestText,
  sent,
  taskOf,
  toolNames,
} from './helpersScript';

let h: Harness;
afterEach(async () => h?.close());

const until = (check: () => void) => vi.waitFor(check, { timeout: 15_000, interval: 20 });

const FILES = { 'alpha.txt': 'apples grow here', 'beta.txt': 'bananas ripen there', 'gamma.txt': 'grapes hang low' };
const TASKS = Object.keys(FILES).map((f) => ({ task: `Read ${f} and say what it holds.` }));
const readTask = (task: string) => {
  const file = /Read (\S+) and/.exec(task)?.[1];
  return file ? { name: 'read_file', arguments: { path: file } } : null;
};

async function explorersHarness(concurrency: number | null): Promise<Harness> {
  const harness = await startHarness({
    settings: { helpers: { concurrency } },
    llm: { defaultReply: delegatingModel({ delegateOn: 'look around', tasks: TASKS, helperCall: readTask }) },
  });
  for (const [name, body] of Object.entries(FILES)) writeFileSync(path.join(harness.dir, name), body);
  return harness;
}

const helperEvents = (events: AppEvent[]): HelperSummary[] =>
  events.flatMap((e) => (e.type === 'helper.updated' ? [e.helper] : []));

describe('delegate with three explore tasks', () => {
  it('runs them at once, each in a context of its own; the parent reads only their reports', async () => {
    h = await explorersHarness(3);
    await h.turn('The secret word is PARENT-SECRET-42.');
    // Every helper's first request waits here until all three are in flight: they overlap.
    const hold = h.llm.hold((req) => isHelperRequest(req) && req.messages.at(-1)?.role === 'user');
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'look around' });
    await until(() => expect(hold.held()).toBe(3));
    hold.release();
    await h.api.idle(h.sessionId);

    const all = sent(h.llm);
    for (const { task } of TASKS) {
      const mine = helperRequests(all, task);
      for (const r of mine) {
        const seen = requestText(r);
        // Its task, never the parent's conversation.
        expect(seen).toContain(task);
        expect(seen).not.toContain('PARENT-SECRET-42');
        expect(seen).not.toContain('look around');
        // Depth 1: no delegate among its tools; explore: read-only ones (and commands, read-only).
        const tools = toolNames(r);
        expect(tools).not.toContain('delegate');
        expect(tools).not.toContain('write_file');
        expect(tools).toContain('read_file');
      }
    }
    // The parent's request after the call: the three reports, none of the helpers' tool traffic.
    const parentAfter = all.filter((r) => !isHelperRequest(r)).at(-1)!;
    const after = requestText(parentAfter);
    for (const body of Object.values(FILES)) expect(after).toContain(body);
    expect(after).not.toContain('"read_file"');
    expect(parentAfter.messages.filter((m) => m.role === 'tool')).toHaveLength(1);

    // Three helpers, done, each with its report and what it read.
    const list = await h.api['helpers.list']({ sessionId: h.sessionId });
    expect(list.map((x) => [x.index, x.role, x.status])).toEqual([
      [0, 'explore', 'done'],
      [1, 'explore', 'done'],
      [2, 'explore', 'done'],
    ]);
    for (const x of list) {
      expect(x.toolCalls).toEqual([{ name: 'read_file', count: 1 }]);
      expect(x.report).toContain('Report for');
      expect(x.returnedTokens).toBeGreaterThan(0);
      expect(x.usage.calls).toBe(2);
    }
    // The delegate call's result says what each helper read.
    const result = h.history().find((m) => m.role === 'tool' && m.meta?.toolName === 'delegate')!;
    expect(result.content).toContain('All 3 helpers finished.');
    expect(result.content).toContain('Files it read: alpha.txt');
    expect(result.meta?.helpers).toEqual(list.map((x) => x.id));
    // Memory gained the files they read (no summary call: no request asked for one).
    const facts = await h.api['memory.facts.list']({ sessionId: h.sessionId });
    const known = facts.map((f) => f.content);
    for (const f of Object.keys(FILES)) expect(known.some((k) => k.endsWith(f))).toBe(true);
    expect(h.llm.chatRequests().some((r) => r.isSummaryRequest)).toBe(false);

    // Their sessions are not in the list, but their messages are kept and can be read and searched.
    const sessions = await h.api['sessions.list']({});
    expect(sessions.map((s) => s.id)).toEqual([h.sessionId]);
    const own = await h.api['messages.list']({ sessionId: list[0]!.id });
    expect(own[0]!.content).toBe(TASKS[0]!.task);
    expect(own.some((m) => m.role === 'tool' && (m.content ?? '').includes('apples grow here'))).toBe(true);
    const hits = await h.api['search.messages']({ query: 'Report for Read beta' });
    expect(hits.map((x) => [x.sessionId, x.parentSessionId])).toContainEqual([list[1]!.id, h.sessionId]);
    const exported = await h.api['sessions.export']({ id: list[2]!.id, format: 'markdown' });
    expect(exported.content).toContain('Read gamma.txt');

    // The rows were told live: queued, running, the tool, done.
    const updates = helperEvents(h.events).filter((x) => x.id === list[0]!.id);
    expect(updates.map((x) => x.status)).toEqual(expect.arrayContaining(['queued', 'running', 'done']));
    // The parent's cost counts them apart.
    const cost = await h.api['usage.session']({ sessionId: h.sessionId });
    expect(cost.helpers?.count).toBe(3);
    expect(cost.helpers?.total.calls).toBe(6);
    expect(cost.helpers?.returnedTokens).toBe(list.reduce((n, x) => n + (x.returnedTokens ?? 0), 0));
    // Its own calls apart: the conversation's requests and its title.
    expect(cost.total.calls).toBe(all.length - 6 + (h.llm.chatRequests().length - all.length));
    // Three helpers' turns and the file's first start of the runtime: tens of seconds on a busy machine.
  }, 120_000);

  it('runs one at a time with a model on this machine (the default for a local provider)', async () => {
    h = await explorersHarness(null);
    await h.turn('look around');
    const helperRecs = h.llm.chatRequests().filter((r) => isHelperRequest(r.body as never));
    expect(helperRecs).toHaveLength(6);
    // Never two requests in flight: one helper ran after the other.
    expect(helperRecs.map((r) => r.concurrent)).toEqual([1, 1, 1, 1, 1, 1]);
    // In task order.
    const order = helperRecs.map((r) => taskOf(r.body as never));
    expect(order).toEqual([
      TASKS[0]!.task,
      TASKS[0]!.task,
      TASKS[1]!.task,
      TASKS[1]!.task,
      TASKS[2]!.task,
      TASKS[2]!.task,
    ]);
  });
});

describe("a helper's own context", () => {
  it('compacts on its own, with the session strategy, when its reading fills its window', async () => {
    let reads = 0;
    h = await startHarness({
      window: 9000,
      settings: { compaction: { strategy: 'cfpm_memory_v1', autoThreshold: 0.8 } },
      llm: {
        defaultReply: (req) => {
          if (!isHelperRequest(req)) {
            const last = req.messages.at(-1);
            if (last?.role === 'tool') return { content: 'done' };
            return { toolCalls: [{ name: 'delegate', arguments: { tasks: [{ task: 'Read every part.' }] } }] };
          }
          // Twelve reads (counted here: a compaction hides the earlier ones from the requests).
          if (reads >= 12) return { content: 'Read the parts.' };
          return { toolCalls: [{ name: 'read_file', arguments: { path: `part${reads++ % 4}.txt` } }] };
        },
      },
    });
    for (let i = 0; i < 4; i++)
      writeFileSync(
        path.join(h.dir, `part${i}.txt`),
        `${`line ${i} of a long file to read. `.repeat(12)}\n`.repeat(20),
      );
    await h.turn('read it all');
    const [helper] = await h.api['helpers.list']({ sessionId: h.sessionId });
    expect(helper!.status).toBe('done');
    const own = await h.api['compaction.list']({ sessionId: helper!.id });
    expect(own.length).toBeGreaterThan(0);
    expect(own[0]!.strategy).toBe('cfpm_memory_v1');
    expect(own[0]!.trigger).toBe('auto');
    // The parent's context never held the reading: nothing to compact there.
    expect(await h.api['compaction.list']({ sessionId: h.sessionId })).toEqual([]);
  });
});
