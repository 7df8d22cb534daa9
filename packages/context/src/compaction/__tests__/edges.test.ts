import { describe, expect, it } from 'vitest';
import { STRATEGIES } from '@threadline/protocol';
import { autoCompactionHeld, buildView, compact, messageKeepTokens, pairViolations } from '../..';
import { edgeSessions, replayEdge } from '../../../bench/edges';
import { HistoryBuilder, MODEL, apply, fakeSummarizer, type SummarizerLog } from './fixtures';

/**
 * Issue 36 point 2: the engine at its edges. The sessions of the bench (bench/edges.ts), replayed
 * message by message with the auto trigger, and the rules one by one.
 */
describe('the edge sessions, replayed under every strategy', () => {
  const sessions = edgeSessions();
  const cases = sessions.flatMap((s) => STRATEGIES.map((st) => [s.name, st, s] as const));
  it.each(cases)(
    '%s, %s: no failed compaction, none over the window, the task and its rule kept',
    async (_n, st, s) => {
      const f = await replayEdge(s, st, 'gpt-4o');
      expect(f.reasons).toEqual([]);
      expect(f.failed).toBe(0);
      expect(f.compactions).toBeGreaterThan(0);
      expect(f.overWindow).toBe(0);
      expect(f.pairViolations).toBe(0);
      expect(f.taskKept).toBe(true);
      expect(f.ruleKept).toBe(true);
      expect(f.finalPercent).toBeLessThanOrEqual(100);
    },
  );
});

const TASK = 'Task: migrate the billing tables to the new schema described below.';
const RULE = 'Always keep the old columns until the backfill is verified.';
const paste = (chars: number): string =>
  Array.from({ length: Math.ceil(chars / 60) }, (_, i) => `column_${i} integer not null default ${i}, -- legacy field`)
    .join('\n')
    .slice(0, chars);

describe('a message too large to carry whole', () => {
  it('keeps its head (the task) and tail, its instructions, and says how to read it whole', async () => {
    const b = new HistoryBuilder();
    b.system();
    const first = b.user(`${TASK}\n${paste(20_000)}\n${RULE}\n${paste(20_000)}\nEnd of the schema.`);
    for (let i = 0; i < 6; i++) b.segment(`next step ${i}`, 1, 600);
    const r = await compact({
      history: b.messages,
      strategy: 'legacy_segmented',
      model: MODEL,
      window: 16_000,
      trigger: 'manual',
      summarizer: fakeSummarizer(),
    });
    expect(r.ok, r.reason ?? '').toBe(true);
    expect(r.tokensAfter).toBeLessThanOrEqual(16_000);
    const copy = r.inserted.find((m) => m.meta?.['placeholderFor'] === first.id)!;
    expect(copy.role).toBe('user');
    expect(copy.content).toContain(TASK);
    expect(copy.content).toContain(RULE);
    expect(copy.content).toContain(`read it whole with read_tool_output(id: "${first.id}"`);
    expect(copy.content!.trimEnd().endsWith('End of the schema.')).toBe(true);
    expect(r.hiddenIds).toContain(first.id);
    // The ledger does not carry the whole message again beside its cut copy.
    const after = apply(b.messages, [], r);
    const view = buildView({ history: after.history, compactions: after.compactions, model: MODEL });
    expect(view.messages.filter((m) => (m.content ?? '').includes(TASK))).toHaveLength(1);
    expect(view.tokens).toBeLessThanOrEqual(16_000);
  });

  it('a task under half the window stays whole; the request being answered is cut only over half the window', async () => {
    const b = new HistoryBuilder();
    b.system();
    b.user(`${TASK} ${paste(8_000)}`); // ~2,000 tokens: under half of 16,000
    for (let i = 0; i < 3; i++) b.segment(`step ${i}`, 1, 400);
    const last = b.user(`Here is the full dump. ${paste(40_000)}`); // ~10,000 tokens: over half
    const r = await compact({
      history: b.messages,
      strategy: 'cfpm_memory_v1',
      model: MODEL,
      window: 16_000,
      trigger: 'recovery',
      target: 8_000,
    });
    expect(r.ok, r.reason ?? '').toBe(true);
    const after = apply(b.messages, [], r);
    const text = buildView({ history: after.history, compactions: after.compactions, model: MODEL })
      .messages.map((m) => m.content ?? '')
      .join('\n');
    expect(text).toContain(`${TASK} ${paste(8_000)}`);
    expect(r.hiddenIds).toContain(last.id);
    expect(text).toContain('Here is the full dump.');
    expect(messageKeepTokens(8_000)).toBe(800);
  });

  it('the request over the whole window is not cut: the compaction fails and names it', async () => {
    const b = new HistoryBuilder();
    b.system();
    b.user('hello');
    const big = b.user(paste(80_000)); // ~20,000 tokens
    const r = await compact({
      history: b.messages,
      strategy: 'progressive',
      model: MODEL,
      window: 16_000,
      trigger: 'recovery',
      summarizer: fakeSummarizer(),
    });
    expect(r.ok).toBe(false);
    expect(r.reason).toMatch(/^message_over_window/);
    expect(r.oversized?.id).toBe(big.id);
  });
});

describe('over the window with few messages, and no loops', () => {
  it('below the minimum an automatic run prunes (no summary call); over the window it folds too', async () => {
    const b = new HistoryBuilder();
    b.system();
    b.user('Task: find why the nightly import fails. Do not restart the database.');
    for (let i = 0; i < 3; i++) b.tool('shell', `log ${i} `.padEnd(12_000, 'x'));
    const log: SummarizerLog = { calls: [] };
    const under = await compact({
      history: b.messages,
      strategy: 'legacy_segmented',
      model: MODEL,
      window: 10_000,
      trigger: 'auto',
      threshold: 0.8,
      summarizer: fakeSummarizer(log),
    });
    expect(under.ok, under.reason ?? '').toBe(true);
    expect(log.calls).toHaveLength(0);
    expect(under.steps.map((s) => s.name)).not.toContain('summarize');
    expect(under.tokensAfter).toBeLessThanOrEqual(10_000);
    const over = await compact({
      history: b.messages,
      strategy: 'legacy_segmented',
      model: MODEL,
      window: 6_000,
      trigger: 'auto',
      threshold: 0.8,
      summarizer: fakeSummarizer(log),
    });
    expect(over.ok, over.reason ?? '').toBe(true);
    expect(over.tokensAfter).toBeLessThanOrEqual(6_000);
    expect(pairViolations(buildView({ ...apply(b.messages, [], over), model: MODEL }).messages)).toEqual({
      unansweredCalls: [],
      orphanResults: [],
    });
  });

  it('below the minimum with nothing to prune or cut: not due yet (too_few_messages), nothing changed', async () => {
    const b = new HistoryBuilder();
    b.system();
    // With the system prompt, eleven messages of ~750 tokens (under CFPM's 12): nothing large, no tool output.
    for (let i = 0; i < 10; i++)
      if (i % 2 === 0) b.user(`step ${i}: ${paste(3_200)}`);
      else b.assistant(`answer ${i}: ${paste(3_200)}`);
    const r = await compact({
      history: b.messages,
      strategy: 'cfpm_memory_v1',
      model: MODEL,
      window: 9_000,
      trigger: 'auto',
      threshold: 0.8,
    });
    expect(r.tokensBefore).toBeGreaterThan(0.8 * 9_000);
    expect(r.reason, JSON.stringify(r.steps)).toBe('too_few_messages');
    expect(r.hiddenIds).toEqual([]);
    expect(r.inserted).toEqual([]);
  });

  it('a compaction that freed too little holds the trigger until the view has grown', () => {
    const window = 10_000;
    expect(autoCompactionHeld(null, 9_000, window)).toBe(false);
    expect(autoCompactionHeld({ tokensBefore: 8_500, tokensAfter: 8_300 }, 8_400, window)).toBe(true);
    expect(autoCompactionHeld({ tokensBefore: 8_500, tokensAfter: 8_300 }, 8_800, window)).toBe(false);
    // One that helped does not hold the next.
    expect(autoCompactionHeld({ tokensBefore: 8_500, tokensAfter: 5_000 }, 8_100, window)).toBe(false);
  });
});
