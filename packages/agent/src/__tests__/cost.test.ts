import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '@threadline/fake-llm';
import { callCost, type UsageTotals } from '@threadline/protocol';
import { seqToolModel, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

const PRICE = { input: 2, cachedInput: 0.5, output: 8 };

/** What fake-llm answered, summed: the figures the meter must show. */
function reported(reqs: RecordedRequest[]): Omit<UsageTotals, 'cost' | 'unpricedCalls'> & { cost: number } {
  const t = { calls: 0, promptTokens: 0, cachedTokens: 0, completionTokens: 0, cost: 0 };
  for (const r of reqs) {
    if (!r.usage) continue;
    t.calls++;
    t.promptTokens += r.usage.prompt_tokens;
    t.cachedTokens += r.usage.cached_tokens;
    t.completionTokens += r.usage.completion_tokens;
    t.cost += callCost(
      {
        promptTokens: r.usage.prompt_tokens,
        cachedTokens: r.usage.cached_tokens,
        completionTokens: r.usage.completion_tokens,
      },
      PRICE,
    )!;
  }
  return t;
}

describe('usage and cost of model calls', () => {
  it('stores every call, summaries marked and linked to their compaction; the cost follows the price table', async () => {
    const clock = { t: 1_800_000_000_000 };
    h = await startHarness({
      settings: { approvalPolicy: 'auto' },
      llm: { defaultReply: seqToolModel('counted') },
      api: { clock: () => clock.t },
    });
    const profile = (await h.api['providers.list']({}))[0]!;
    for (let t = 1; t <= 5; t++) await h.turn(`turn ${t}: count again`);
    // No price for fake-model: tokens are counted, the cost is unknown (never guessed).
    const unknown = await h.api['usage.session']({ sessionId: h.sessionId });
    expect(unknown.total.cost).toBeNull();
    expect(unknown.total.unpricedCalls).toBe(unknown.total.calls);
    expect(unknown.total.calls).toBe(10);

    const prices = await h.api['usage.prices.set']({ profileId: profile.id, model: 'fake-model', price: PRICE });
    expect(prices.find((p) => p.model === 'fake-model')).toEqual({
      model: 'fake-model',
      price: PRICE,
      source: 'profile',
    });
    await h.api['compaction.run']({ sessionId: h.sessionId });
    await h.turn('turn 6: count once more');

    const reqs = h.llm.chatRequests();
    const cost = await h.api['usage.session']({ sessionId: h.sessionId });
    const all = reported(reqs);
    expect(cost.total).toEqual({ ...all, cost: expect.closeTo(all.cost, 12) as number, unpricedCalls: 0 });
    // The provider's cache was used: later requests repeat the earlier ones' beginning.
    expect(cost.total.cachedTokens).toBeGreaterThan(cost.total.promptTokens / 2);
    const summaryReqs = reqs.filter((r) => r.isSummaryRequest);
    expect(summaryReqs.length).toBeGreaterThan(0);
    const summaries = reported(summaryReqs);
    expect(cost.summaries).toEqual({
      ...summaries,
      cost: expect.closeTo(summaries.cost, 12) as number,
      unpricedCalls: 0,
    });
    // The compaction's divider shows what its summary cost.
    const [record] = await h.api['compaction.list']({ sessionId: h.sessionId });
    expect(cost.compactions[record!.id]).toEqual(cost.summaries);
    // The summary request read the conversation from the cache.
    expect(summaryReqs[0]!.usage!.cached_tokens).toBeGreaterThan(0);
    // The renderers were told the totals after the last call.
    const last = h.events.filter((e) => e.type === 'usage.recorded').at(-1);
    expect(last?.type === 'usage.recorded' && last.cost.total.calls).toBe(all.calls);

    // Totals per day and model, in the caller's time zone.
    const daily = await h.api['usage.daily']({ tzOffsetMinutes: 0, days: 7 });
    expect(daily.rows).toEqual([
      expect.objectContaining({
        day: new Date(clock.t).toISOString().slice(0, 10),
        model: 'fake-model',
        calls: all.calls,
        promptTokens: all.promptTokens,
        cachedTokens: all.cachedTokens,
      }),
    ]);
  });

  it('the summary request is the conversation plus the instruction; a tool call instead of a note asks again without tools', async () => {
    h = await startHarness({ settings: { approvalPolicy: 'auto' }, llm: { defaultReply: seqToolModel('n') } });
    for (let t = 1; t <= 5; t++) await h.turn(`turn ${t}`);
    h.llm.setRules([
      { match: { summaryRequest: true, hasTools: true }, reply: { toolCalls: [{ name: 'list_dir', arguments: {} }] } },
    ]);
    const before = h.llm.chatRequests().length;
    const last = h.llm.chatRequests().at(-1)!.body as { messages: unknown[]; tools: unknown[] };
    const out = await h.api['compaction.run']({ sessionId: h.sessionId });
    expect(out.ok).toBe(true);
    const [prefixed, fresh] = h.llm.chatRequests().slice(before);
    const p = prefixed!.body as { messages: { role: string; content: string }[]; tools: unknown[] };
    // The same tools and every message the model last saw, then the instruction.
    expect(p.tools).toEqual(last.tools);
    expect(p.messages.slice(0, last.messages.length)).toEqual(last.messages);
    expect(p.messages.at(-1)!.content).toContain('write a handoff note');
    expect(prefixed!.usage!.cached_tokens).toBeGreaterThan(0);
    // The model called a tool: the transcript prompt, without tools, wrote the note.
    expect(fresh!.isSummaryRequest).toBe(true);
    expect((fresh!.body as { tools?: unknown[] }).tools ?? []).toEqual([]);
    expect(out.compaction!.summary).toContain('Summary of the conversation');
  });

  it('stores the title request as a call of its own kind, counted in the session total', async () => {
    h = await startHarness({ llm: { defaultReply: { content: 'Done.' } } });
    // A session with no title of the user's: the model names it after the first reply.
    const s = await h.api['sessions.create']({});
    await h.api['chat.send']({ sessionId: s.id, text: 'Please look at the build' });
    await h.api.idle(s.id);
    const reqs = h.llm.chatRequests();
    const titleReq = reqs.find((r) => JSON.stringify(r.body).includes('Title this conversation'));
    expect(titleReq?.usage).toBeTruthy();
    const groups = h.store.usage.sessionGroups(s.id);
    expect(groups.find((g) => g.kind === 'title')).toMatchObject({
      calls: 1,
      promptTokens: titleReq!.usage!.prompt_tokens,
      completionTokens: titleReq!.usage!.completion_tokens,
    });
    const cost = await h.api['usage.session']({ sessionId: s.id });
    const all = reported(reqs);
    expect(cost.total).toMatchObject({ calls: all.calls, promptTokens: all.promptTokens });
    expect(cost.summaries.calls).toBe(0);
  });

  it('reads DeepSeek’s cache fields too', async () => {
    h = await startHarness({
      settings: { approvalPolicy: 'auto' },
      llm: { defaultReply: seqToolModel('seen'), usageStyle: 'deepseek' },
    });
    await h.turn('count please');
    await h.turn('and again');
    const cost = await h.api['usage.session']({ sessionId: h.sessionId });
    const all = reported(h.llm.chatRequests());
    expect(cost.total.cachedTokens).toBe(all.cachedTokens);
    expect(cost.total.cachedTokens).toBeGreaterThan(0);
  });

  it('warns before a large resend once the cache has likely expired (the clock is injected)', async () => {
    const clock = { t: 1_800_000_000_000 };
    h = await startHarness({
      settings: { approvalPolicy: 'auto', cache: { ttlMinutes: 5, warnAboveTokens: 1000 } },
      llm: { defaultReply: seqToolModel('big') },
      api: { clock: () => clock.t },
    });
    const before = await h.api['usage.resendEstimate']({ sessionId: h.sessionId });
    expect(before).toMatchObject({ idleMs: null, expired: false, warn: false });
    await h.turn('count');
    clock.t += 4 * 60_000;
    const fresh = await h.api['usage.resendEstimate']({ sessionId: h.sessionId });
    expect(fresh).toMatchObject({ idleMs: 4 * 60_000, expired: false, warn: false, cost: null });
    clock.t += 2 * 60_000;
    const stale = await h.api['usage.resendEstimate']({ sessionId: h.sessionId });
    expect(stale.expired).toBe(true);
    expect(stale.promptTokens).toBeGreaterThan(1000);
    expect(stale.warn).toBe(true);
    const profile = (await h.api['providers.list']({}))[0]!;
    await h.api['usage.prices.set']({ profileId: profile.id, model: 'fake-model', price: PRICE });
    const priced = await h.api['usage.resendEstimate']({ sessionId: h.sessionId });
    expect(priced.cost).toBeCloseTo((priced.promptTokens * PRICE.input) / 1e6, 12);
    expect(priced.cachedCost).toBeCloseTo((priced.promptTokens * PRICE.cachedInput) / 1e6, 12);
    // A large request under the size never warns.
    await h.api['settings.set']({ patch: { cache: { warnAboveTokens: 10_000_000 } } });
    expect((await h.api['usage.resendEstimate']({ sessionId: h.sessionId })).warn).toBe(false);
  });

  it('a price edited while a turn runs, and a compaction, give the same figures as the store', async () => {
    h = await startHarness({ settings: { approvalPolicy: 'ask' }, llm: { defaultReply: seqToolModel('priced') } });
    const profile = (await h.api['providers.list']({}))[0]!;
    const lastShown = () => {
      const e = h.events.filter((x) => x.type === 'usage.recorded').at(-1);
      return e?.type === 'usage.recorded' ? e.cost : null;
    };
    for (let t = 1; t <= 3; t++) {
      await h.api['chat.send']({ sessionId: h.sessionId, text: `turn ${t}` });
      const asked = await h.waitFor(
        'tool.requested',
        (e) => e.needsApproval && e.toolCall.function.arguments.includes(`${1500 + t}`),
      );
      await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: asked.toolCall.id, decision: 'approve' });
      await h.api.idle(h.sessionId);
    }
    // No price yet: the cost shown is unknown.
    expect(lastShown()?.total.cost).toBeNull();
    // The price is set between the turn's first call (stored and shown) and its second.
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'turn 4' });
    const asked = await h.waitFor(
      'tool.requested',
      (e) => e.needsApproval && e.toolCall.function.arguments.includes('1504'),
    );
    expect(lastShown()?.total.cost).toBeNull();
    await h.api['usage.prices.set']({ profileId: profile.id, model: 'fake-model', price: PRICE });
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: asked.toolCall.id, decision: 'approve' });
    await h.api.idle(h.sessionId);
    const priced = await h.api['usage.session']({ sessionId: h.sessionId });
    const all = reported(h.llm.chatRequests());
    expect(priced.total).toEqual({ ...all, cost: expect.closeTo(all.cost, 12) as number, unpricedCalls: 0 });
    // What the renderers were told after the last call is what the store says.
    expect(lastShown()).toEqual(priced);
    // A compaction links its summary calls: the figures shown follow.
    await h.api['compaction.run']({ sessionId: h.sessionId });
    const compacted = await h.api['usage.session']({ sessionId: h.sessionId });
    expect(Object.keys(compacted.compactions)).toHaveLength(1);
    expect(lastShown()).toEqual(compacted);
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'turn 5' });
    const fifth = await h.waitFor(
      'tool.requested',
      (e) => e.needsApproval && e.toolCall.function.arguments.includes('1505'),
    );
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: fifth.toolCall.id, decision: 'approve' });
    await h.api.idle(h.sessionId);
    expect(lastShown()).toEqual(await h.api['usage.session']({ sessionId: h.sessionId }));
  });
});
