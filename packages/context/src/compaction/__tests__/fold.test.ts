/**
 * A second compaction folds the first ("previous summaries are folded into the next
 * one, never stacked"), on a history long enough that the second run has a real middle range.
 */
import type { CompactionRecord, StoredMessage } from '@threadline/protocol';
import { describe, expect, it } from 'vitest';
import { buildView, planFor } from '../..';
import { apply, fakeSummarizer, HistoryBuilder, MODEL, run, type SummarizerLog } from './fixtures';

const sed = (file: string) => JSON.stringify({ command: `sed -i 's/old/new/' ${file}` });

/** `n` segments from `from`, each writing src/mod<i>.py with one shell call. */
function grow(h: HistoryBuilder, from: number, n: number): void {
  for (let i = from; i < from + n; i++) {
    h.user(`Please update module number ${i}`);
    h.tool('shell', `exit code: 0\n${'log line\n'.repeat(40)}`, sed(`src/mod${i}.py`));
    h.assistant(`Updated src/mod${i}.py.`);
  }
}

function extend(history: StoredMessage[], from: number, n: number): StoredMessage[] {
  const h = new HistoryBuilder();
  h.messages.push(...history);
  grow(h, from, n);
  return h.messages;
}

const visibleKinds = (history: StoredMessage[], compactions: CompactionRecord[]) =>
  buildView({ history, compactions, model: MODEL }).entries.map((e) => e.kind);

describe('a second compaction folds the first', () => {
  it('legacy_segmented: the first summary goes into the second request and is hidden, not stacked', async () => {
    const h = new HistoryBuilder();
    h.system();
    grow(h, 0, 10);
    const log: SummarizerLog = { calls: [] };
    const first = await run({
      history: h.messages,
      strategy: 'legacy_segmented',
      summarizer: fakeSummarizer(log, 'FIRST SUMMARY: mod0..mod6'),
    });
    expect(first.ok).toBe(true);
    const s1 = apply(h.messages, [], first);
    const history2 = extend(s1.history, 10, 8);
    const second = await run({
      history: history2,
      compactions: s1.compactions,
      strategy: 'legacy_segmented',
      summarizer: fakeSummarizer(log, 'SECOND SUMMARY'),
    });
    expect(second.ok).toBe(true);
    // The middle of the second run holds real messages, not only the first run's inserts.
    const summarize = second.steps.find((st) => st.name === 'summarize')!;
    expect(log.calls[1]!.messages.length).toBeGreaterThan(10);
    expect(summarize.hidden).toBeGreaterThan(10);
    // The first summary, with the user's words and the ledger the engine appended to it.
    expect(log.calls[1]!.previousSummaries).toHaveLength(1);
    expect(log.calls[1]!.previousSummaries[0]).toMatch(
      /^FIRST SUMMARY: mod0\.\.mod6\n\n\[The user's own messages[^\n]*\n--- The user[\s\S]*\n\n\[Ledger of the hidden range\]/,
    );
    expect(second.hiddenIds).toEqual(expect.arrayContaining(first.inserted.map((m) => m.id)));
    const s2 = apply(history2, s1.compactions, second);
    const kinds = visibleKinds(s2.history, s2.compactions);
    expect(kinds.filter((k) => k === 'summary')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'continuation')).toHaveLength(1);
    const view = buildView({ history: s2.history, compactions: s2.compactions, model: MODEL }).messages;
    expect(view.some((m) => m.content?.includes('FIRST SUMMARY'))).toBe(false);
    expect(view.some((m) => m.content?.includes('SECOND SUMMARY'))).toBe(true);
  });

  it('cfpm_memory_v1: the first [CFPM_MEMORY_V1] snapshot is hidden by the second and its content folded in', async () => {
    const h = new HistoryBuilder();
    h.system();
    grow(h, 0, 10);
    const first = await run({ history: h.messages, strategy: 'cfpm_memory_v1', summarizer: null, memoryFacts: [] });
    expect(first.ok).toBe(true);
    const snap1 = first.inserted.find((m) => m.kind === 'memory_snapshot')!;
    expect(snap1.content).toContain('src/mod1.py');
    expect(snap1.content).toContain('Please update module number 1');
    const s1 = apply(h.messages, [], first);
    const history2 = extend(s1.history, 10, 8);
    const second = await run({
      history: history2,
      compactions: s1.compactions,
      strategy: 'cfpm_memory_v1',
      summarizer: null,
      memoryFacts: [],
    });
    expect(second.ok).toBe(true);
    expect(second.steps.find((st) => st.name === 'memory_checkpoint')!.hidden).toBeGreaterThan(10);
    expect(second.hiddenIds).toEqual(expect.arrayContaining(first.inserted.map((m) => m.id)));

    const s2 = apply(history2, s1.compactions, second);
    const kinds = visibleKinds(s2.history, s2.compactions);
    expect(kinds.filter((k) => k === 'memory_snapshot')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'continuation')).toHaveLength(1);
    const snap2 = second.inserted.find((m) => m.kind === 'memory_snapshot')!.content!;
    expect(snap2.match(/\[CFPM_MEMORY_V1\]/g)).toHaveLength(1);
    // Files the first range wrote survive the second checkpoint (no facts carry them here).
    for (const i of [1, 3, 6, 12]) expect(snap2).toContain(`src/mod${i}.py`);
    expect(snap2).toContain('Please update module number 1');
    expect(snap2).toMatch(/Earlier checkpoints folded in: 1 \(\d+ messages\)/);
    const view = buildView({ history: s2.history, compactions: s2.compactions, model: MODEL }).messages;
    for (let i = 0; i < 18; i++) expect(view.some((m) => m.content?.includes(`src/mod${i}.py`))).toBe(true);
  });
});

describe('keep_head_tail presets', () => {
  it('cfpm_memory_v1 keeps the first 2 and last 8 messages; legacy_segmented the first 3 and last 10', async () => {
    expect(planFor('cfpm_memory_v1', 0.9, 'auto')[0]![0]).toEqual({ name: 'keep_head_tail', head: 2, tail: 8 });
    expect(planFor('legacy_segmented', 0.9, 'auto')[0]![0]).toEqual({ name: 'keep_head_tail', head: 3, tail: 10 });
    const h = new HistoryBuilder();
    for (let i = 0; i < 30; i++) {
      if (i % 2 === 0) h.user(`question number ${i} about the code`);
      else h.assistant(`answer ${i} ${'x'.repeat(400)}`);
    }
    const ids = h.messages.map((m) => m.id);
    const cases = [
      ['cfpm_memory_v1', 2, 8],
      ['legacy_segmented', 3, 10],
    ] as const;
    for (const [strategy, head, tail] of cases) {
      const r = await run({ history: h.messages, strategy, summarizer: fakeSummarizer() });
      expect(r.ok).toBe(true);
      expect(r.steps[0]).toMatchObject({ name: 'keep_head_tail', selected: 30 - head - tail });
      expect(r.hiddenIds).toEqual(ids.slice(head, 30 - tail));
    }
  });
});
