import { afterEach, describe, expect, it } from 'vitest';
import { compactionNotices, startHarness, type Harness } from './harness';

/**
 * Issue 22 point 5, with the real runtime and fake-llm over HTTP: the provider's error states its
 * window, the profile learns it (shown, undoable), and a message over that window on its own is
 * named with its size and can be cut or left out; no recovery compaction that did not help stays.
 */

let h: Harness;
afterEach(async () => h?.close());

const payload = (content: string | null) => JSON.parse((content ?? '').slice((content ?? '').indexOf('{')));

describe('the window learns from the provider', () => {
  it('a profile set to 100,000 against a 16,000 model and a 130 KB paste: learned, named, cut, answered', async () => {
    h = await startHarness({ window: 100_000, llm: { defaultReply: { content: 'Read the log.' } } });
    await h.turn('Hello, a short first question for the model.');
    h.llm.setContextWindow(16_000, 'openai');
    const paste = `Here is the build log:\n${Array.from({ length: 2600 }, (_, i) => `step ${i} compiled module_${i}.o in ${i % 97} ms`).join('\n')}`;
    expect(paste.length).toBeGreaterThan(100_000);
    await h.turn(paste);

    // Learned before recovery compacted against the wrong figure; shown as a notice, kept on the profile.
    const profile = h.store.providers.active()!;
    expect(profile.contextWindow).toBe(100_000);
    expect(profile.learnedContextWindow).toBe(16_000);
    const learned = compactionNotices(h.history(), 'window_learned');
    expect(learned).toHaveLength(1);
    expect(payload(learned[0]!.content)).toMatchObject({ window: 16_000, previousWindow: 100_000 });
    expect(h.events.some((e) => e.type === 'providers.changed' && e.profile.learnedContextWindow === 16_000)).toBe(
      true,
    );
    const usage = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(usage.window).toBe(16_000);

    // Which message, by how much.
    const sent = h.history().find((m) => m.role === 'user' && (m.content ?? '').startsWith('Here is the build log'))!;
    const [tooLarge] = compactionNotices(h.history(), 'message_too_large');
    const p = payload(tooLarge!.content);
    expect(p.messageId).toBe(sent.id);
    expect(p.window).toBe(16_000);
    expect(p.messageTokens).toBeGreaterThan(16_000);
    // Nothing compacted stays applied, and the model was not asked again for nothing.
    const records = await h.api['compaction.list']({ sessionId: h.sessionId });
    expect(records.filter((r) => r.active)).toEqual([]);
    expect(compactionNotices(h.history(), 'max_attempts')).toEqual([]);

    // Cut it, and the same request goes through.
    const { compaction } = await h.api['compaction.fitMessage']({
      sessionId: h.sessionId,
      messageId: sent.id,
      action: 'cut',
    });
    expect(compaction.hiddenIds).toEqual([sent.id]);
    expect(compaction.insertedIds).toHaveLength(1);
    await h.api['chat.retry']({ sessionId: h.sessionId });
    await h.api.idle(h.sessionId);
    expect(
      h
        .history()
        .filter((m) => m.role === 'assistant')
        .at(-1)?.content,
    ).toBe('Read the log.');
    const last = h.llm.requests.filter((r) => r.status === 200 && !r.isSummaryRequest).at(-1)!;
    expect(last.promptTokens!).toBeLessThanOrEqual(16_000);
    expect(JSON.stringify(last.body)).toContain('step 0 compiled module_0.o');
    expect(JSON.stringify(last.body)).not.toContain('step 1300 compiled module_1300.o');

    // Undone in the profile form: the profile's own window again.
    const undone = await h.api['providers.upsert']({
      id: profile.id,
      preset: profile.preset,
      name: profile.name,
      baseUrl: profile.baseUrl,
      model: profile.model,
      contextWindow: profile.contextWindow,
      learnedContextWindow: null,
    });
    expect(undone.learnedContextWindow).toBeNull();
    expect((await h.api['context.usage']({ sessionId: h.sessionId })).window).toBe(100_000);
  });

  it('remove: the message is left out of what the model reads, and the compaction can be undone', async () => {
    h = await startHarness({ window: 100_000, llm: { defaultReply: { content: 'ok then' } } });
    h.llm.setContextWindow(4_000, 'anthropic');
    const paste = `Please read: ${'a long pasted line of text with words '.repeat(2000)}`;
    await h.turn(paste);
    expect(h.store.providers.active()!.learnedContextWindow).toBe(4_000);
    const [tooLarge] = compactionNotices(h.history(), 'message_too_large');
    const id = payload(tooLarge!.content).messageId as string;
    const { compaction } = await h.api['compaction.fitMessage']({
      sessionId: h.sessionId,
      messageId: id,
      action: 'remove',
    });
    expect(compaction.insertedIds).toEqual([]);
    await h.turn('Summarize what you can instead.');
    const last = h.llm.requests.filter((r) => r.status === 200 && !r.isSummaryRequest).at(-1)!;
    expect(JSON.stringify(last.body)).not.toContain('a long pasted line of text');
    const { undone } = await h.api['compaction.undo']({ sessionId: h.sessionId });
    expect(undone?.id).toBe(compaction.id);
  });
});
