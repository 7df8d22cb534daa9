import { describe, expect, it } from 'vitest';
import { buildView } from '../..';
import { fakeSummarizer, HistoryBuilder, MODEL, run } from './fixtures';

function longSession(): HistoryBuilder {
  const h = new HistoryBuilder();
  h.system();
  h.user('ok');
  for (let i = 0; i < 8; i++) h.segment(`Please handle task ${i} now`, 3, 2000);
  return h;
}

describe('progressive', () => {
  it('at 75% usage starts LIGHT (tool outputs kept) and stops there when the target is met', async () => {
    const h = longSession();
    const tokens = buildView({ history: h.messages, model: MODEL }).tokens;
    const r = await run({
      history: h.messages,
      strategy: 'progressive',
      window: Math.ceil(tokens / 0.75),
      trigger: 'auto',
      target: tokens - 1000,
    });
    expect(r.ok).toBe(true);
    // The fake summary names no user instruction: the ledger appends them.
    expect(r.steps.map((s) => s.name)).toEqual(['summarize', 'ledger']);
    expect(r.steps[0]!['detail']).toBe('standard');
    expect(r.steps[0]!['toolOutputsRemovedPercent']).toBe(0);
  });

  it('escalates to the next levels while over the target, folding its own earlier summary', async () => {
    const h = longSession();
    const tokens = buildView({ history: h.messages, model: MODEL }).tokens;
    const r = await run({
      history: h.messages,
      strategy: 'progressive',
      window: Math.ceil(tokens / 0.75),
      trigger: 'auto',
      target: 1500,
    });
    expect(r.ok).toBe(true);
    const names = r.steps.map((s) => s.name);
    expect(names[0]).toBe('summarize');
    expect(names).toContain('prune_tool_outputs');
    expect(r.steps.filter((s) => s.name === 'summarize').length).toBeGreaterThan(1);
    // Only one summary survives: each level folded the previous one.
    expect(r.inserted.filter((m) => m.kind === 'summary')).toHaveLength(1);
    expect(r.inserted.filter((m) => m.kind === 'continuation')).toHaveLength(1);
  });

  it('at 97% goes straight to CRITICAL: keep 2, ultra-short summary, no tool outputs for the summarizer', async () => {
    const h = longSession();
    const tokens = buildView({ history: h.messages, model: MODEL }).tokens;
    const log = { calls: [] as Parameters<ReturnType<typeof fakeSummarizer>>[0][] };
    const r = await run({
      history: h.messages,
      strategy: 'progressive',
      window: Math.ceil(tokens / 0.97),
      trigger: 'auto',
      summarizer: fakeSummarizer(log),
    });
    expect(r.ok).toBe(true);
    // The fake summary names no user instruction: the ledger appends them.
    expect(r.steps.map((s) => s.name)).toEqual(['summarize', 'ledger']);
    expect(log.calls[0]!.detail).toBe('ultra');
    expect(log.calls[0]!.messages.filter((m) => m.role === 'tool').every((m) => m.content!.includes('elided'))).toBe(
      true,
    );
  });
});

describe('priority_chain', () => {
  it('stops as soon as the view is under the target', async () => {
    const h = longSession();
    const tokens = buildView({ history: h.messages, model: MODEL }).tokens;
    const r = await run({ history: h.messages, strategy: 'priority_chain', target: tokens - 2 });
    expect(r.ok).toBe(true);
    expect(r.steps.map((s) => s.name)).toEqual(['strip_chitchat']);
    const r2 = await run({ history: h.messages, strategy: 'priority_chain', target: tokens - 1000 });
    expect(r2.steps.map((s) => s.name)).toEqual(['strip_chitchat', 'drop_monologues']);
    expect(r2.steps[1]!['segmentsCompacted']).toBe(1);
  });
});

describe('priority_chain after strip_chitchat', () => {
  it('still finds the segments whose short opening request was stripped', async () => {
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 4; i++) h.segment(`task ${i}`, 3, 2000); // "task 0" is chit-chat by the 15-char rule
    const tokens = buildView({ history: h.messages, model: MODEL }).tokens;
    const r = await run({ history: h.messages, strategy: 'priority_chain', target: tokens - 2000 });
    expect(r.ok).toBe(true);
    expect(r.steps.map((s) => s.name)).toEqual(['strip_chitchat', 'drop_monologues']);
    expect(r.steps[0]!.hidden).toBe(3);
    expect(r.steps[1]!['segments']).toBe(4);
  });
});

describe('priority_chain auto target (at 85%, stop as soon as under)', () => {
  const h = longSession();
  const tokens = buildView({ history: h.messages, model: MODEL }).tokens;
  const window = Math.ceil(tokens / 0.9); // 90% used

  it('aims at (min(0.85, threshold) − 0.1) × window and stops as soon as it is under', async () => {
    const at80 = await run({
      history: h.messages,
      strategy: 'priority_chain',
      window,
      trigger: 'auto',
      threshold: 0.8,
    });
    expect(at80.target).toBe(Math.floor(window * 0.7));
    expect(at80.ok).toBe(true);
    expect(at80.tokensAfter).toBeLessThanOrEqual(at80.target);
    // A threshold over 0.85 (0.95): the run happens at 96% usage and still aims at 75%.
    const window96 = Math.ceil(tokens / 0.96);
    const at85 = await run({
      history: h.messages,
      strategy: 'priority_chain',
      window: window96,
      trigger: 'auto',
      threshold: 0.95,
    });
    expect(at85.target).toBe(Math.floor(window96 * 0.75));
    expect(at85.ok).toBe(true);
    // Under the old 60% target the chain went on to later priorities and hid far more.
    const deep = await run({
      history: h.messages,
      strategy: 'priority_chain',
      window,
      trigger: 'auto',
      target: Math.floor(window * 0.6),
    });
    expect(at85.tokensAfter).toBeGreaterThan(deep.tokensAfter);
    expect(at85.hiddenIds.length).toBeLessThan(deep.hiddenIds.length);
  });

  it.each([[undefined], [null], [0], [1], [1.5], [-0.2]])('a threshold of %s counts as 0.85', async (threshold) => {
    const r = await run({ history: h.messages, strategy: 'priority_chain', window, trigger: 'auto', threshold });
    expect(r.target).toBe(Math.floor(window * 0.75));
  });

  it('manual and recovery runs, other strategies and explicit targets keep their targets', async () => {
    expect(
      (await run({ history: h.messages, strategy: 'priority_chain', window, trigger: 'manual', threshold: 0.8 }))
        .target,
    ).toBe(Math.floor(window * 0.6));
    expect(
      (await run({ history: h.messages, strategy: 'priority_chain', window, trigger: 'recovery', threshold: 0.8 }))
        .target,
    ).toBe(Math.floor(window * 0.6));
    expect(
      (await run({ history: h.messages, strategy: 'progressive', window, trigger: 'auto', threshold: 0.8 })).target,
    ).toBe(Math.floor(window * 0.6));
    expect(
      (
        await run({
          history: h.messages,
          strategy: 'priority_chain',
          window,
          trigger: 'auto',
          threshold: 0.8,
          target: 1234,
        })
      ).target,
    ).toBe(1234);
  });
});
