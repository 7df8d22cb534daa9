import { describe, expect, it } from 'vitest';
import {
  buildView,
  parseManualTrigger,
  planFor,
  progressiveLevel,
  recoveryTarget,
  shouldAutoCompact,
  defaultTarget,
} from '../..';
import { apply, fakeSummarizer, HistoryBuilder, MODEL, run, type SummarizerLog } from './fixtures';

describe('triggers', () => {
  it('auto compaction fires at the threshold; ≤ 0 or ≥ 1 disables it', () => {
    expect(shouldAutoCompact(0.8, 0.8)).toBe(true);
    expect(shouldAutoCompact(0.79, 0.8)).toBe(false);
    expect(shouldAutoCompact({ total: 90, window: 100 }, 0.8)).toBe(true);
    expect(shouldAutoCompact(0.99, 0)).toBe(false);
    expect(shouldAutoCompact(0.99, 1)).toBe(false);
    expect(shouldAutoCompact({ total: 90, window: 0 }, 0.8)).toBe(false);
  });

  it('recognizes exactly the manual phrases, trimmed, and /compact <instructions>', () => {
    expect(parseManualTrigger('Please compact this conversation')).toEqual({ instructions: null });
    expect(parseManualTrigger('  /compact \n')).toEqual({ instructions: null });
    expect(parseManualTrigger('/summarize')).toEqual({ instructions: null });
    expect(parseManualTrigger('/compact Focus on the auth code ')).toEqual({ instructions: 'Focus on the auth code' });
    for (const t of [
      'please compact this conversation',
      '/compaction',
      'Please compact this conversation now',
      '/summarize this',
      'compact',
    ]) {
      expect(parseManualTrigger(t)).toBeNull();
    }
  });

  it('targets: 60% by default, lower on each recovery attempt', () => {
    expect(defaultTarget(100_000)).toBe(60_000);
    expect(recoveryTarget(100_000, 1)).toBe(50_000);
    expect(recoveryTarget(100_000, 3)).toBe(30_000);
    expect(recoveryTarget(100_000, 9)).toBe(10_000);
  });
});

describe('strategy presets', () => {
  it('progressive picks its level from usage and escalates through the next ones', () => {
    expect(progressiveLevel(0.5)).toBe('NONE');
    expect(progressiveLevel(0.7)).toBe('LIGHT');
    expect(progressiveLevel(0.85)).toBe('MEDIUM');
    expect(progressiveLevel(0.92)).toBe('HEAVY');
    expect(progressiveLevel(0.95)).toBe('CRITICAL');
    expect(planFor('progressive', 0.5, 'auto')).toEqual([]);
    expect(planFor('progressive', 0.5, 'manual')).toHaveLength(4);
    expect(planFor('progressive', 0.92, 'auto')).toHaveLength(2);
    expect(planFor('priority_chain', 0.9, 'auto').map((g) => g[0]!.name)).toEqual([
      'strip_chitchat',
      'drop_monologues',
      'summarize',
      'drop_monologues',
      'brute_prune',
    ]);
  });

  it('auto runs respect the minimum message count; manual runs ignore it', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.segment('small', 4, 4000); // 11 messages
    expect((await run({ history: h.messages, strategy: 'cfpm_memory_v1', trigger: 'auto' })).reason).toBe(
      'too_few_messages',
    );
    const h19 = new HistoryBuilder();
    h19.system();
    h19.segment('bigger', 8, 4000); // 19 messages
    expect((await run({ history: h19.messages, strategy: 'legacy_segmented', trigger: 'auto' })).reason).toBe(
      'too_few_messages',
    );
    expect((await run({ history: h19.messages, strategy: 'cfpm_memory_v1', trigger: 'auto' })).ok).toBe(true);
    expect((await run({ history: h19.messages, strategy: 'legacy_segmented', trigger: 'manual' })).ok).toBe(true);
  });

  it('legacy and CFPM prune the outputs of the kept tail when folding the middle is not enough', async () => {
    // Five round trips of 8,000-char outputs sit in the tail that both strategies keep.
    const h = new HistoryBuilder();
    h.system();
    h.segment('old work', 2, 400);
    h.segment('recent heavy work', 5, 8000);
    const target = 4000; // 10,000+ tokens of kept outputs cannot fit without pruning them
    for (const strategy of ['legacy_segmented', 'cfpm_memory_v1'] as const) {
      const r = await run({ history: h.messages, strategy, target });
      expect(r.ok, strategy).toBe(true);
      expect(r.tokensAfter).toBeLessThanOrEqual(target);
      expect(r.steps.at(-1)!.name).toBe('prune_tool_outputs');
      const { history, compactions } = apply(h.messages, [], r);
      const view = buildView({ history, compactions, model: MODEL });
      const tools = view.messages.filter((m) => m.role === 'tool');
      // The pairs stay whole, the latest output is intact, older ones point to read_tool_output.
      expect(tools.at(-1)!.content).toMatch(/^out recent heavy work 4/);
      expect(tools.some((m) => /read_tool_output\(id: "call_\d+"\)/.test(m.content ?? ''))).toBe(true);
    }
    expect(planFor('legacy_segmented', 0.9, 'auto').map((g) => g[0]!.name)).toEqual([
      'keep_head_tail',
      'prune_tool_outputs',
    ]);
  });

  it('a compaction that does not reduce the estimate is refused and changes nothing', async () => {
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 5; i++) h.segment(`t${i}`, 2, 50);
    const r = await run({
      history: h.messages,
      strategy: 'legacy_segmented',
      summarizer: fakeSummarizer(undefined, 'blah '.repeat(5000)),
    });
    expect(r.ok).toBe(false);
    expect(r.reason).toBe('no_reduction');
    expect(r.hiddenIds).toEqual([]);
    expect(r.inserted).toEqual([]);
    expect(r.stats.removed).toBe(0);
    expect(r.tokensAfter).toBe(r.tokensBefore);
  });

  it('priority_chain skips a failing summary (P3) and goes on to P4/P5', async () => {
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 4; i++) h.segment(`t${i}`, 6, 3000);
    const before = buildView({ history: h.messages, model: MODEL }).tokens;
    const r = await run({
      history: h.messages,
      strategy: 'priority_chain',
      target: Math.floor(before * 0.2),
      summarizer: async () => Promise.reject(new Error('boom')),
    });
    expect(r.ok).toBe(true);
    const p3 = r.steps.find((s) => s.name === 'summarize');
    expect(p3?.skipped).toBe('summary_failed');
    expect(r.steps.at(-1)!.name).toBe('brute_prune');
    expect(r.tokensAfter).toBeLessThanOrEqual(r.target);
  });

  it('a second compaction folds the first summary instead of stacking it', async () => {
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 10; i++) h.segment(`task ${i}`, 2, 1500);
    const log: SummarizerLog = { calls: [] };
    const first = await run({ history: h.messages, strategy: 'legacy_segmented', summarizer: fakeSummarizer(log) });
    expect(first.ok).toBe(true);
    let s = apply(h.messages, [], first);
    const hb = new HistoryBuilder();
    hb.messages.push(...s.history);
    for (let i = 10; i < 16; i++) hb.segment(`task ${i}`, 2, 1500);
    const second = await run({
      history: hb.messages,
      compactions: s.compactions,
      strategy: 'legacy_segmented',
      summarizer: fakeSummarizer(log),
    });
    expect(second.ok).toBe(true);
    expect(second.hiddenIds).toContain(first.inserted[0]!.id);
    expect(second.hiddenIds).toContain(first.inserted[1]!.id);
    expect(log.calls[1]!.previousSummaries).toEqual([first.summary]);
    s = apply(hb.messages, s.compactions, second);
    const v = buildView({ history: s.history, compactions: s.compactions, model: MODEL });
    expect(v.entries.filter((e) => e.kind === 'summary')).toHaveLength(1);
    expect(v.entries.filter((e) => e.kind === 'continuation')).toHaveLength(1);
    // Undo the second: the first summary is back, the second is gone.
    const undone = s.compactions.map((c, i) => (i === 1 ? { ...c, active: false } : c));
    const u = buildView({ history: s.history, compactions: undone, model: MODEL });
    expect(u.entries.filter((e) => e.kind === 'summary').map((e) => e.id)).toEqual([first.inserted[0]!.id]);
  });
});

describe('an explicit request below every threshold', () => {
  const short = () => {
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 4; i++) {
      h.user(`Question ${i}: tell me something about topic ${i} in a few sentences, please.`);
      h.assistant(`Answer ${i}: `.padEnd(600, 'a'));
    }
    return h.messages;
  };

  for (const strategy of ['legacy_segmented', 'progressive', 'priority_chain', 'cfpm_memory_v1'] as const) {
    it(`${strategy}: manual compacts a short session at low usage, keeping the latest exchange`, async () => {
      const log: SummarizerLog = { calls: [] };
      const history = short();
      const r = await run({ history, strategy, summarizer: fakeSummarizer(log), instructions: 'the topics' });
      expect(r.ok).toBe(true);
      expect(r.tokensAfter).toBeLessThan(r.tokensBefore);
      // priority_chain's own steps (dropping monologues) already reduce; the others take the fallback.
      if (strategy === 'priority_chain') return;
      const last2 = history.slice(-2).map((m) => m.id);
      for (const id of last2) expect(r.hiddenIds).not.toContain(id);
      if (strategy !== 'cfpm_memory_v1') {
        // The instructions reach the summary prompt.
        expect(log.calls.at(-1)?.instructions).toBe('the topics');
        expect(r.summary).toContain('focusing on the topics');
      }
    });
  }

  it('auto runs never take the manual fallback', async () => {
    const r = await run({ history: short(), strategy: 'progressive', trigger: 'auto' });
    expect(r.ok).toBe(false);
  });

  it('nothing to hide: a session of one exchange stays as it is', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.user('Hello there, a first question.');
    h.assistant('A first answer.');
    const r = await run({ history: h.messages, strategy: 'legacy_segmented' });
    expect(r.ok).toBe(false);
    expect(r.hiddenIds).toEqual([]);
  });
});
