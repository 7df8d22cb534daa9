import { describe, expect, it } from 'vitest';
import { buildView, ContextLimitError, elideToolOutputsMiddleOut, isChitchat, pairViolations, type Plan } from '../..';
import { apply, fakeSummarizer, HistoryBuilder, MODEL, run, viewIds, type SummarizerLog } from './fixtures';

describe('strip_chitchat', () => {
  it('recognizes chit-chat in several languages but not questions, commands or real requests', () => {
    for (const t of ['ok', 'ya', 'lanjut', '好的', 'thanks', ' sure ']) expect(isChitchat(t)).toBe(true);
    for (const t of ['why?', 'stop!', '/compact', 'please refactor the parser', '为什么？', ''])
      expect(isChitchat(t)).toBe(false);
  });

  it('hides chit-chat user messages but never the latest user message', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.segment('Write the parser', 2, 4000);
    h.user('ok');
    h.assistant('Anything else?');
    h.user('why is it slow?');
    h.assistant('Because.');
    h.user('lanjut');
    const plan: Plan = [[{ name: 'strip_chitchat' }]];
    const r = await run({ history: h.messages, strategy: 'priority_chain', plan, target: 1_000_000 });
    expect(r.ok).toBe(true);
    const hidden = r.hiddenIds.map((id) => h.messages.find((m) => m.id === id)!.content);
    expect(hidden).toEqual(['ok']);
  });
});

describe('prune_tool_outputs', () => {
  it('replaces old outputs with a pair-safe placeholder and keeps the recent tail and protected tools', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.user('Investigate');
    const old = h.tool('shell', 'OLD OUTPUT '.repeat(400));
    const todo = h.tool('manage_todo_list', 'TODO '.repeat(400));
    h.tool('shell', 'RECENT '.repeat(400));
    h.assistant('Found it');
    const r = await run({
      history: h.messages,
      strategy: 'progressive',
      plan: [[{ name: 'prune_tool_outputs', keepLast: 3 }]],
      target: 1_000_000,
    });
    expect(r.ok).toBe(true);
    expect(r.inserted).toHaveLength(1);
    const ph = r.inserted[0]!;
    expect(ph.role).toBe('tool');
    expect(ph.tool_call_id).toBe(old);
    expect(ph.content).toContain('Tool output pruned by compaction');
    expect(ph.content).toContain('OLD OUTPUT');
    expect(ph.content).toContain(`read_tool_output(id: "${old}")`);
    const applied = apply(h.messages, [], r);
    const v = buildView({ history: applied.history, compactions: applied.compactions, model: MODEL });
    expect(pairViolations(v.messages)).toEqual({ unansweredCalls: [], orphanResults: [] });
    // The placeholder sits exactly where the output was.
    const callIdx = v.messages.findIndex((m) => m.tool_calls?.[0]?.id === old);
    expect(v.messages[callIdx + 1]!.content).toBe(ph.content);
    expect(v.messages.some((m) => m.tool_call_id === todo && m.content!.startsWith('TODO'))).toBe(true);
  });
});

describe('drop_monologues', () => {
  it("keeps every user message and each completed segment's final answer; the active segment stays whole", async () => {
    const h = new HistoryBuilder();
    h.system();
    h.segment('first task', 3);
    h.segment('second task', 3);
    h.segment('third task', 2);
    const r = await run({
      history: h.messages,
      strategy: 'priority_chain',
      plan: [[{ name: 'drop_monologues', which: 'all' }]],
      target: 1,
    });
    // Target 1 is unreachable: best effort, the smaller view is returned all the same.
    expect(r.ok).toBe(true);
    expect(r.targetReached).toBe(false);
    expect(r.tokensAfter).toBeLessThan(r.tokensBefore);
    expect(r.hiddenIds.length).toBeGreaterThan(0);
    const ok = await run({
      history: h.messages,
      strategy: 'priority_chain',
      plan: [[{ name: 'drop_monologues', which: 'all' }]],
      target: 1_000_000,
    });
    expect(ok.ok).toBe(true);
    const { history, compactions } = apply(h.messages, [], ok);
    const v = buildView({ history, compactions, model: MODEL });
    const texts = v.messages.map((m) => m.content);
    for (const t of ['first task', 'second task', 'third task', 'Done with: first task', 'Done with: second task'])
      expect(texts).toContain(t);
    // Oldest first, stopping once under the target: segment 1 lost its 3 round trips.
    expect(ok.hiddenIds).toHaveLength(6);
    expect(v.messages.filter((m) => m.role === 'tool')).toHaveLength(5);
    // A tighter target also compacts segment 2; the active segment keeps its 2 round trips.
    const tight = await run({
      history: h.messages,
      strategy: 'priority_chain',
      plan: [[{ name: 'drop_monologues', which: 'all' }]],
      target: ok.tokensAfter - 1,
    });
    expect(tight.ok).toBe(true);
    expect(tight.hiddenIds).toHaveLength(12);
    const tv = buildView({ ...apply(h.messages, [], tight), model: MODEL });
    expect(tv.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(tv.messages.map((m) => m.content)).toContain('Done with: second task');
  });
});

describe('keep_head_tail + summarize (legacy_segmented)', () => {
  it('summarizes the middle, passes instructions, inserts summary and continuation after the head', async () => {
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 8; i++) h.segment(`task ${i}`, 2, 1000);
    const log: SummarizerLog = { calls: [] };
    const r = await run({
      history: h.messages,
      strategy: 'legacy_segmented',
      summarizer: fakeSummarizer(log),
      instructions: 'the parser',
    });
    expect(r.ok).toBe(true);
    expect(log.calls).toHaveLength(1);
    expect(log.calls[0]!.instructions).toBe('the parser');
    expect(r.summary).toContain('focusing on the parser');
    expect(r.inserted.map((m) => m.kind)).toEqual(['summary', 'continuation']);
    expect(r.inserted.every((m) => m.visibility.user === false && m.visibility.agent === true)).toBe(true);
    const { history, compactions } = apply(h.messages, [], r);
    const ids = viewIds(history, compactions);
    // head: system, user, assistant-call (+ its result to keep the pair); then summary; then a tail of ≥ 10.
    expect(ids.slice(0, 4)).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(ids[4]).toBe(r.inserted[0]!.id);
    expect(ids[5]).toBe(r.inserted[1]!.id);
    expect(ids.length - 6).toBeGreaterThanOrEqual(10);
    expect(r.inserted[1]!.content).toContain('compacted');
  });

  it('falls back to removing tool outputs middle-out when the summary call overflows', async () => {
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 6; i++) h.segment(`task ${i}`, 3, 3000);
    const seen: number[] = [];
    const r = await run({
      history: h.messages,
      strategy: 'legacy_segmented',
      summarizer: async (req) => {
        seen.push(req.toolOutputsRemovedPercent);
        const chars = req.messages.reduce((n, m) => n + (m.content?.length ?? 0), 0);
        if (chars > 25_000) throw new ContextLimitError();
        return 'short summary';
      },
    });
    expect(r.ok).toBe(true);
    expect(seen[0]).toBe(0);
    expect(seen.length).toBeGreaterThan(1);
    expect(r.steps.find((s) => s.name === 'summarize')!['toolOutputsRemovedPercent']).toBe(seen.at(-1));
  });

  it('elides tool outputs from the middle outwards', () => {
    const msgs = Array.from({ length: 5 }, (_, i) => ({
      role: 'tool' as const,
      content: `t${i}`,
      tool_call_id: `c${i}`,
    }));
    const out = elideToolOutputsMiddleOut(msgs, 20);
    expect(
      out.map((m) => m.content === `t${msgs.indexOf(msgs.find((x) => x.tool_call_id === m.tool_call_id)!)}`),
    ).toEqual([true, true, false, true, true]);
    expect(elideToolOutputsMiddleOut(msgs, 100).every((m) => m.content!.includes('elided'))).toBe(true);
  });

  it('a failing summarizer makes the compaction fail and change nothing', async () => {
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 6; i++) h.segment(`task ${i}`, 2);
    const r = await run({
      history: h.messages,
      strategy: 'legacy_segmented',
      summarizer: async () => Promise.reject(new Error('HTTP 500')),
    });
    expect(r.ok).toBe(false);
    // The reason names the step and carries the summarizer's (the provider's) own sentence.
    expect(r.reason).toBe('step_failed:summarize: HTTP 500');
    expect(r.hiddenIds).toEqual([]);
    expect(r.inserted).toEqual([]);
  });
});

describe('rebuild', () => {
  it('keeps user messages (recent first, within budget), protected tools and turn-aborted markers', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.user('old request '.repeat(100));
    h.tool('manage_todo_list', '[ ] step 1');
    h.segment('middle request', 3);
    h.add({ role: 'user', content: '<turn-aborted>', kind: 'turn_aborted' });
    h.segment('recent request', 3);
    const plan: Plan = [[{ name: 'rebuild', keepLast: 2, userTokenBudget: 50 }]];
    const r = await run({ history: h.messages, strategy: 'legacy_segmented', plan });
    expect(r.ok).toBe(true);
    const { history, compactions } = apply(h.messages, [], r);
    const texts = buildView({ history, compactions, model: MODEL }).messages.map((m) => m.content ?? '');
    expect(texts).toContain('middle request');
    expect(texts).toContain('recent request');
    expect(texts).toContain('[ ] step 1');
    expect(texts).toContain('<turn-aborted>');
    // Over the 50-token budget: the old long request was folded into the summary.
    expect(texts.some((t) => t.startsWith('old request'))).toBe(false);
    expect(r.steps[0]!['userMessagesKept']).toBe(2);
  });
});

describe('brute_prune', () => {
  it('keeps the last 50 messages pair-safe, plus system and protected tools', async () => {
    const h = new HistoryBuilder();
    h.system();
    h.user('go');
    h.tool('manage_todo_list', 'todo');
    for (let i = 0; i < 60; i++) h.tool('shell', `o${i}`);
    const r = await run({
      history: h.messages,
      strategy: 'priority_chain',
      plan: [[{ name: 'brute_prune', keep: 50 }]],
      target: 1_000_000,
    });
    expect(r.ok).toBe(true);
    const { history, compactions } = apply(h.messages, [], r);
    const v = buildView({ history, compactions, model: MODEL });
    expect(pairViolations(v.messages)).toEqual({ unansweredCalls: [], orphanResults: [] });
    expect(v.messages[0]!.role).toBe('system');
    expect(v.messages.some((m) => m.content === 'todo')).toBe(true);
    expect(v.messages.length).toBe(1 + 2 + 50);
  });
});

describe('memory_checkpoint (cfpm_memory_v1)', () => {
  it('inserts a deterministic [CFPM_MEMORY_V1] snapshot with no model call', async () => {
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 6; i++) h.segment(`edit src/file${i}.ts`, 2);
    const r = await run({ history: h.messages, strategy: 'cfpm_memory_v1', summarizer: null });
    expect(r.ok).toBe(true);
    expect(r.inserted[0]!.kind).toBe('memory_snapshot');
    expect(r.inserted[0]!.content).toContain('[CFPM_MEMORY_V1]');
    const again = await run({ history: h.messages, strategy: 'cfpm_memory_v1', summarizer: null });
    expect(again.inserted.map((m) => m.content)).toEqual(r.inserted.map((m) => m.content));
  });
});
