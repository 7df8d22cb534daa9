// A model per session, the provider's model list, and profile deletion, over real HTTP to fake-llm.
import { afterEach, describe, expect, it } from 'vitest';
import type { AppEvent } from '@threadline/protocol';
import { compactionNotices, startHarness, type Harness } from './harness';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const modelOf = (hh: Harness, i = -1): unknown => (hh.llm.chatRequests().at(i)!.body as { model: string }).model;
const lastWindow = (hh: Harness, sessionId: string): number =>
  hh.events.findLast((e): e is Extract<AppEvent, { type: 'usage' }> => e.type === 'usage' && e.sessionId === sessionId)!
    .usage.window;

async function turnIn(hh: Harness, sessionId: string, text: string): Promise<void> {
  await hh.api['chat.send']({ sessionId, text });
  await hh.api.idle(sessionId);
}

describe('a model per session', () => {
  it("lists the provider's models, cached per profile until refreshed", async () => {
    h = await startHarness({ llm: { models: ['fake-model', 'gpt-4o', 'big-one'] } });
    const profile = h.store.providers.active()!;
    const listCalls = () => h!.llm.requests.filter((r) => r.path === '/v1/models').length;
    expect(await h.api['providers.models']({ id: profile.id })).toEqual({
      models: ['big-one', 'fake-model', 'gpt-4o'],
      error: null,
    });
    h.llm.setModels(['other']);
    expect((await h.api['providers.models']({ id: profile.id })).models).toEqual(['big-one', 'fake-model', 'gpt-4o']);
    expect(listCalls()).toBe(1);
    expect((await h.api['providers.models']({ id: profile.id, refresh: true })).models).toEqual(['other']);
    expect(listCalls()).toBe(2);
  });

  it('says why when the provider cannot list its models (a typed model still works)', async () => {
    h = await startHarness();
    const broken = h.store.providers.upsert({
      preset: 'custom',
      name: 'gone',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'x',
      contextWindow: 8000,
    });
    const res = await h.api['providers.models']({ id: broken.id });
    expect(res.models).toEqual([]);
    expect(res.error).toMatch(/reach|ECONNREFUSED/i);
  });

  it("switching one session's model changes the model of that session's next request only; the meter follows its window", async () => {
    h = await startHarness({ window: 50_000 });
    const profile = h.store.providers.active()!;
    const other = await h.api['sessions.create']({ workingFolder: h.dir });
    const set = await h.api['sessions.setModel']({ id: h.sessionId, profileId: profile.id, model: 'gpt-4o' });
    expect(set).toMatchObject({ profileId: profile.id, model: 'gpt-4o' });
    expect(lastWindow(h, h.sessionId)).toBe(128_000); // the meter follows before any turn
    await h.turn('hello');
    expect(modelOf(h)).toBe('gpt-4o');
    expect(lastWindow(h, h.sessionId)).toBe(128_000);
    await turnIn(h, other.id, 'hello there');
    expect(modelOf(h)).toBe('fake-model');
    expect(lastWindow(h, other.id)).toBe(50_000);
    // Back to the profile's own model: stored as none, so an edit of the profile applies.
    expect(
      await h.api['sessions.setModel']({ id: h.sessionId, profileId: profile.id, model: 'fake-model' }),
    ).toMatchObject({ model: null });
    await h.turn('again');
    expect(modelOf(h)).toBe('fake-model');
  });

  it('a session on another profile talks to it; deleting that profile sends the session back to the active one', async () => {
    h = await startHarness();
    const active = h.store.providers.active()!;
    const second = await h.api['providers.upsert']({
      preset: 'custom',
      name: 'second',
      baseUrl: h.llm.url,
      model: 'second-model',
      contextWindow: 16_000,
      apiKey: 'other-key',
    });
    await h.api['sessions.setModel']({ id: h.sessionId, profileId: second.id, model: null });
    await h.turn('hi');
    const rec = h.llm.chatRequests().at(-1)!;
    expect(modelOf(h)).toBe('second-model');
    expect(rec.headers.authorization).toBe('Bearer other-key');
    expect(lastWindow(h, h.sessionId)).toBe(16_000);
    expect(await h.api['providers.delete']({ id: second.id })).toEqual({ deleted: true, sessions: 1 });
    const updated = h.events.findLast(
      (e): e is Extract<AppEvent, { type: 'session.updated' }> =>
        e.type === 'session.updated' && e.sessionId === h!.sessionId,
    );
    expect(updated?.session).toMatchObject({ profileId: null, model: null });
    expect(lastWindow(h, h.sessionId)).toBe(128_000); // the meter follows at once
    await h.turn('still there?');
    expect(modelOf(h)).toBe(active.model);
    expect(h.llm.chatRequests().at(-1)!.headers.authorization).toBe('Bearer test-key');
  });

  it('refuses a profile that does not exist, and a model without its profile', async () => {
    h = await startHarness();
    await expect(h.api['sessions.setModel']({ id: h.sessionId, profileId: 'nope', model: 'x' })).rejects.toThrow(
      /No provider profile/,
    );
    await expect(h.api['sessions.setModel']({ id: h.sessionId, profileId: null, model: 'x' })).rejects.toThrow(
      /together/,
    );
  });
});

describe('a model per session and the window learned from the provider', () => {
  it("a learned window belongs to the profile's own model (and to a model the table does not know)", async () => {
    h = await startHarness({ window: 100_000 });
    const profile = h.store.providers.active()!;
    h.store.providers.setLearnedWindow(profile.id, 16_000);
    const other = await h.api['sessions.create']({ workingFolder: h.dir });
    await h.api['sessions.setModel']({ id: other.id, profileId: profile.id, model: 'gpt-4o' });
    expect((await h.api['context.usage']({ sessionId: other.id })).window).toBe(128_000);
    expect((await h.api['context.usage']({ sessionId: h.sessionId })).window).toBe(16_000);
    await h.api['sessions.setModel']({ id: other.id, profileId: profile.id, model: 'typed-unknown-model' });
    expect((await h.api['context.usage']({ sessionId: other.id })).window).toBe(16_000);
  });

  it("another model's context-limit error shrinks that turn's window only; the profile does not learn it", async () => {
    h = await startHarness({ window: 100_000, llm: { defaultReply: { content: 'Read the log.' } } });
    const profile = h.store.providers.active()!;
    await h.api['sessions.setModel']({ id: h.sessionId, profileId: profile.id, model: 'typed-unknown-model' });
    h.llm.setContextWindow(16_000, 'openai');
    const paste = `Here is the build log:\n${Array.from({ length: 2600 }, (_, i) => `step ${i} compiled module_${i}.o`).join('\n')}`;
    await h.turn(paste);
    expect(modelOf(h)).toBe('typed-unknown-model');
    expect(compactionNotices(h.history(), 'window_learned')).toHaveLength(1);
    expect(h.store.providers.get(profile.id)!.learnedContextWindow ?? null).toBeNull();
    expect(h.events.some((e) => e.type === 'providers.changed')).toBe(false);
  });
});
