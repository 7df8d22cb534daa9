import { afterEach, describe, expect, it } from 'vitest';
import { countMessageTokens, MEMORY_BLOCK_HEADER } from '@threadline/context';
import { createAppApi } from '../index';
import { compactionNotices, startHarness, type Harness } from './harness';

/**
 * Issue 22 point 4, with the real runtime and fake-llm over HTTP: the view after a compaction
 * that only hides, one "over the threshold" figure for the trigger and the engine, the memory
 * digest of priority_chain, and an auto run that cannot help.
 */

let h: Harness;
afterEach(async () => h?.close());

const requests = (x: Harness) => x.llm.chatRequests().filter((r) => !r.isSummaryRequest);
const messagesOf = (r: { body: unknown }): { role: string; content: unknown }[] =>
  (r.body as { messages: { role: string; content: unknown }[] }).messages;

/**
 * A priority_chain session stored as it would have been: requests with chit-chat ('ok') between
 * them and long answers. `chatty`: mostly chit-chat and short answers, so that stripping the
 * chit-chat (P1) is all a compaction just over 80 % needs to reach its target, 10 points under.
 */
async function chitchatSession(chatty = false): Promise<{ okIds: string[] }> {
  h = await startHarness({
    settings: { compaction: { strategy: 'priority_chain', autoThreshold: 0.8 } },
    llm: { defaultReply: { content: 'On it.' } },
  });
  const msgs = [];
  for (let i = 0; i < (chatty ? 120 : 30); i++) {
    const ok = chatty ? i % 10 !== 9 : i % 2 === 0;
    msgs.push({ role: 'user' as const, content: ok ? 'ok' : `Please do step ${i} of the plan, carefully.` });
    msgs.push({ role: 'assistant' as const, content: chatty ? 'Done.' : `Step ${i} done. `.padEnd(400, '.') });
  }
  const stored = h.store.messages.append(h.sessionId, msgs);
  return { okIds: stored.filter((m) => m.content === 'ok').map((m) => m.id) };
}

/** Sets the active profile's window so the session (plus `extra` tokens) sits at `percent` of it. */
async function windowAt(percent: number, extra: number): Promise<number> {
  const usage = await h.api['context.usage']({ sessionId: h.sessionId });
  const window = Math.round((usage.total + extra) / percent);
  const p = h.store.providers.active()!;
  h.store.providers.upsert({ ...p, contextWindow: window });
  return window;
}

const NEXT = 'What is the status of the plan now?';

describe('priority_chain and the trigger in the runtime', () => {
  it('a compaction that hides but inserts nothing: the next request, context.usage and a reload all read the new view', async () => {
    const { okIds } = await chitchatSession(true);
    // One turn under a large window first: what a turn adds to the view (memory, instructions) is
    // then in context.usage, so the window below puts the next request just over 80 %.
    await h.turn('Where are we?');
    await windowAt(0.803, 14);
    const before = await h.api['context.usage']({ sessionId: h.sessionId });
    await h.turn(NEXT);
    const [record] = await h.api['compaction.list']({ sessionId: h.sessionId });
    expect(record?.trigger).toBe('auto');
    expect(record!.insertedIds).toEqual([]);
    expect(new Set(record!.hiddenIds)).toEqual(new Set(okIds));
    // The request after it carries none of the hidden messages.
    const sent = messagesOf(requests(h).at(-1)!);
    expect(sent.some((m) => m.role === 'user' && m.content === NEXT)).toBe(true);
    expect(sent.filter((m) => m.content === 'ok')).toEqual([]);
    // The meter answers the new total, before and after the process reopens the session.
    const after = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(after.total).toBeLessThan(before.total);
    await h.api.dispose();
    const reopened = createAppApi({
      store: h.store,
      dataDir: `${h.dir}/data`,
      homeDir: `${h.dir}/home`,
      cwd: h.dir,
      loginShell: false,
      emit: () => {},
    });
    try {
      const again = await reopened['context.usage']({ sessionId: h.sessionId });
      // The same view: the meter's parts are in the provider's tokens, scaled by the calibration
      // the running process learned from the provider (the reopened one has seen none yet: 1).
      expect(again.calibration).toBe(1);
      const parts = Object.keys(after.breakdown) as (keyof typeof after.breakdown)[];
      expect(Object.keys(again.breakdown).sort()).toEqual([...parts].sort());
      for (const k of parts) {
        const expected = (again.breakdown[k] ?? 0) * after.calibration;
        expect(Math.abs((after.breakdown[k] ?? 0) - expected), k).toBeLessThanOrEqual(Math.max(2, expected * 0.01));
      }
    } finally {
      await reopened.dispose();
      // close() disposes h.api again: give it a fresh one to dispose.
      h.api = createAppApi({
        store: h.store,
        dataDir: `${h.dir}/data`,
        homeDir: `${h.dir}/home`,
        cwd: h.dir,
        loginShell: false,
        emit: () => {},
      });
    }
  });

  it('just over the threshold with the tool definitions counted, the engine compacts: no below_threshold refusal', async () => {
    await chitchatSession();
    const usage = await h.api['context.usage']({ sessionId: h.sessionId });
    // The refusal this guards against needs tool definitions of some size.
    expect(usage.breakdown.tools).toBeGreaterThan(200);
    await windowAt(0.805, 14);
    await h.turn(NEXT);
    const started = h.events.find((e) => e.type === 'compaction.started');
    expect(started?.type === 'compaction.started' && started.percent).toBeGreaterThanOrEqual(80);
    const failed = h.events.filter((e) => e.type === 'compaction.failed');
    expect(failed).toEqual([]);
    expect(compactionNotices(h.history(), 'compaction_failed')).toEqual([]);
    const [record] = await h.api['compaction.list']({ sessionId: h.sessionId });
    expect(record?.trigger).toBe('auto');
    // Figures like the meter's: the tool definitions are in them, and the result is under the threshold.
    const window = h.store.providers.active()!.contextWindow;
    expect(record!.tokensBefore / window).toBeGreaterThanOrEqual(0.8);
    expect(record!.tokensAfter / window).toBeLessThan(0.8);
    expect(record!.tokensAfter).toBeGreaterThan(usage.breakdown.tools);
  });

  it('priority_chain gets the session memory digest in every request', async () => {
    h = await startHarness({
      settings: { compaction: { strategy: 'priority_chain' } },
      llm: { defaultReply: { content: 'I will start with src/report/build.py.' } },
    });
    await h.turn('Please fix the report builder in src/report/build.py so totals are rounded.');
    await h.turn('Now also add a test for it.');
    const facts = await h.api['memory.facts.list']({ sessionId: h.sessionId });
    expect(facts.length).toBeGreaterThan(0);
    const last = messagesOf(requests(h).at(-1)!);
    const block = last.find((m) => typeof m.content === 'string' && m.content.startsWith(MEMORY_BLOCK_HEADER));
    expect(block).toBeDefined();
    expect(String(block!.content)).toContain('src/report/build.py');
  });

  it('an auto run that cannot help leaves no failure element', async () => {
    h = await startHarness({
      settings: { compaction: { strategy: 'priority_chain', autoThreshold: 0.8 } },
      llm: { defaultReply: { content: 'Read it.' } },
    });
    // Nothing but the user's own words, which every compaction carries whole: hiding them saves nothing.
    const words = (topic: string) => `About ${topic}: ${'the figures must add up across every region. '.repeat(80)}`;
    h.store.messages.append(h.sessionId, [
      { role: 'user', content: words('the sales report') },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: words('the stock report') },
      { role: 'assistant', content: 'Noted.' },
    ]);
    const next = 'Continue with the next part, please.';
    await windowAt(0.9, countMessageTokens({ role: 'user', content: next }, 'fake-model'));
    await h.turn(next);
    // The trigger fired and the engine could not reduce: no record, no failure notice in the chat.
    expect(h.events.some((e) => e.type === 'compaction.started')).toBe(true);
    expect(await h.api['compaction.list']({ sessionId: h.sessionId })).toEqual([]);
    expect(compactionNotices(h.history(), 'compaction_failed')).toEqual([]);
    // The turn went on to the model.
    expect(h.history().some((m) => m.role === 'assistant' && m.content === 'Read it.')).toBe(true);
  });
});
