import { afterEach, describe, expect, it } from 'vitest';
import { compactionNotices, seqToolModel, startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

/** A session far below the auto threshold, with a few sizeable tool outputs. */
async function session(turns: number): Promise<void> {
  h = await startHarness({ settings: { approvalPolicy: 'auto' }, llm: { defaultReply: seqToolModel('done') } });
  for (let t = 1; t <= turns; t++) await h.turn(`task ${t}`);
}

const modelCalls = () => h.llm.chatRequests().filter((r) => !r.isSummaryRequest).length;

describe('manual compaction', () => {
  it('each manual phrase compacts with no model reply', async () => {
    await session(5);
    for (const phrase of [
      'Please compact this conversation',
      '/compact',
      '  /summarize  ',
      '/compact keep the file names',
    ]) {
      const calls = modelCalls();
      const count = h.history().length;
      await h.turn(phrase);
      expect(modelCalls()).toBe(calls);
      const records = await h.api['compaction.list']({ sessionId: h.sessionId });
      const latest = records.at(-1)!;
      expect(latest.trigger).toBe('manual');
      expect(latest.active).toBe(true);
      // The phrase itself is kept, followed by the notice, and no assistant message.
      const added = h.history().slice(count);
      expect(added.some((m) => m.role === 'assistant')).toBe(false);
      // The phrase is shown to the user and never sent to the model.
      expect(added[0]).toMatchObject({ content: phrase, visibility: { user: true, agent: false } });
      expect(h.events.filter((e) => e.type === 'compaction.finished' && e.compaction.id === latest.id)).toHaveLength(1);
      expect(compactionNotices(added, 'compacted')).toEqual([]);
      // Progress in place: the steps it went through, as they began.
      const steps = h.events.flatMap((e) => (e.type === 'compaction.progress' ? [e.step] : []));
      expect(steps).toContain('summarize');
      if (phrase.startsWith('/compact keep')) {
        expect(latest.instructions).toBe('keep the file names');
        const summaryReq = h.llm
          .chatRequests()
          .filter((r) => r.isSummaryRequest)
          .at(-1)!;
        expect(JSON.stringify(summaryReq.body)).toContain('keep the file names');
      }
      // Undo so the next phrase has the same material to work on.
      const { undone } = await h.api['compaction.undo']({ sessionId: h.sessionId });
      expect(undone?.id).toBe(latest.id);
    }
    expect(compactionNotices(h.history(), 'undone').length).toBe(4);
  });

  it('a look-alike (/compaction) is an ordinary message', async () => {
    await session(1);
    const calls = modelCalls();
    await h.turn('/compaction');
    expect(modelCalls()).toBeGreaterThan(calls);
    expect(h.history().at(-1)?.role).toBe('assistant');
    expect(await h.api['compaction.list']({ sessionId: h.sessionId })).toEqual([]);
  });
});

describe('compaction routes', () => {
  it('preview is a dry run; run applies it; undo restores the view', async () => {
    await session(5);
    const historyBefore = h.history().length;
    const usageBefore = await h.api['context.usage']({ sessionId: h.sessionId });
    const summaryCalls = h.llm.chatRequests().length;
    const preview = await h.api['compaction.preview']({ sessionId: h.sessionId });
    expect(preview.ok).toBe(true);
    expect(preview.hiddenIds.length).toBeGreaterThan(0);
    expect(preview.inserted.some((m) => m.kind === 'summary')).toBe(true);
    expect(preview.tokensAfter).toBeLessThan(preview.tokensBefore);
    expect(preview.tokensBefore).toBe(usageBefore.total);
    // No writes and no model call.
    expect(h.history().length).toBe(historyBefore);
    expect(await h.api['compaction.list']({ sessionId: h.sessionId })).toEqual([]);
    expect(h.llm.chatRequests().length).toBe(summaryCalls);

    const run = await h.api['compaction.run']({ sessionId: h.sessionId, instructions: 'focus on the numbers' });
    expect(run.ok).toBe(true);
    expect(run.compaction?.hiddenIds).toEqual(preview.hiddenIds);
    expect(run.compaction?.instructions).toBe('focus on the numbers');
    const usageAfter = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(usageAfter.total).toBeLessThan(usageBefore.total);
    expect(usageAfter.total).toBe(run.compaction?.tokensAfter);
    // History only grew: the hidden messages are still there for the user.
    const history = h.history();
    for (const id of preview.hiddenIds) expect(history.some((m) => m.id === id && m.visibility.user)).toBe(true);

    await h.api['compaction.undo']({ sessionId: h.sessionId });
    // Every renderer learns of the undo from a typed event, not from the notice's text.
    expect(h.events.filter((e) => e.type === 'compaction.undone')).toEqual([
      { type: 'compaction.undone', sessionId: h.sessionId, compaction: expect.objectContaining({ active: false }) },
    ]);
    expect((await h.api['context.usage']({ sessionId: h.sessionId })).total).toBe(usageBefore.total);
    expect((await h.api['compaction.list']({ sessionId: h.sessionId }))[0].active).toBe(false);
    expect(await h.api['compaction.undo']({ sessionId: h.sessionId })).toEqual({ undone: null });
  });

  it('a compaction that cannot reduce is not applied and says so', async () => {
    h = await startHarness();
    await h.turn('hi');
    const res = await h.api['compaction.run']({ sessionId: h.sessionId });
    expect(res.ok).toBe(false);
    expect(res.compaction).toBeNull();
    expect(res.reason).toBeTruthy();
    expect(compactionNotices(h.history(), 'nothing_to_compact').length).toBe(1);
    expect(await h.api['compaction.list']({ sessionId: h.sessionId })).toEqual([]);
  });
});
