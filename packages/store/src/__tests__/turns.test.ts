import { describe, expect, it } from 'vitest';
import { StoreError } from '../types';
import { fakeEncryptor, useTempDir } from './helpers';

describe("a turn's reads and writes (turns)", () => {
  const tmp = useTempDir();

  it("load: the session's row, settings, profile and key, MCP servers, small rows and in one read", () => {
    const store = tmp.open({ encryptor: fakeEncryptor() });
    const s = store.sessions.create('a');
    expect(store.turns.load('nope')).toBeNull();
    // No profile yet: none, and no key asked for.
    expect(store.turns.load(s.id, { secret: true })).toMatchObject({ profile: null, ownProfile: false, secret: null });

    const active = store.providers.upsert({
      preset: 'custom',
      name: 'A',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm-a',
      contextWindow: 8000,
      apiKey: 'key-a',
    });
    const own = store.providers.upsert({
      preset: 'custom',
      name: 'B',
      baseUrl: 'http://127.0.0.1:2/v1',
      model: 'm-b',
      contextWindow: 8000,
      apiKey: 'key-b',
    });
    const rule = store.rules.add(
      { decision: 'allow', match: { kind: 'tool', tool: 'x' }, scope: { kind: 'session', sessionId: s.id } },
      { kind: 'settings' },
    );
    store.sessions.setSystemPrompt(s.id, 'Only SQL.');
    store.sessionSandbox.setNetwork(s.id, true);
    store.usage.setPrice(active.id, 'm-a', { input: 1, cachedInput: 0.5, output: 2 });
    const call = store.usage.record({
      sessionId: s.id,
      profileId: active.id,
      model: 'm-a',
      kind: 'chat',
      promptTokens: 10,
      cachedTokens: 20,
      completionTokens: 3,
      createdAt: 5,
    });
    // The stored row: cached never above prompt.
    expect(call).toMatchObject({ id: expect.any(Number), cachedTokens: 10, compactionId: null, createdAt: 5 });

    const rows = store.turns.load(s.id);
    expect(rows).toMatchObject({
      session: { id: s.id, title: 'a' },
      settings: store.settings.get(),
      profile: { id: active.id },
      ownProfile: false,
      // Not asked for: not decrypted.
      secret: null,
      mcpServers: [],
      rows: { rules: [rule], systemPrompt: 'Only SQL.', sandboxNetwork: true },
    });
    // What the session's cost is worked out from, in one read (kept by the runtime, not per turn).
    expect(store.usage.calls(s.id)).toEqual({
      groups: store.usage.sessionGroups(s.id),
      prices: { [active.id]: { 'm-a': { input: 1, cachedInput: 0.5, output: 2 } } },
      lastCallAt: 5,
    });
    expect(store.turns.load(s.id, { secret: true })?.secret).toBe('key-a');

    // The session's own profile wins while it exists.
    store.sessions.setModel(s.id, own.id, null);
    const mine = store.turns.load(s.id, { secret: true });
    expect(mine).toMatchObject({ profile: { id: own.id }, ownProfile: true, secret: 'key-b' });
    expect(store.turns.rows(s.id)).toEqual(rows!.rows);
    expect(() => store.turns.rows('nope')).toThrow(StoreError);
  });

  it('commit: the messages, the call, the memory refresh and its notice in one transaction, or none of them', () => {
    const store = tmp.open();
    const s = store.sessions.create('a');
    const [user] = store.messages.append(s.id, [{ role: 'user', content: 'hi' }]);
    const step = store.turns.commit(s.id, {
      messages: [{ role: 'assistant', content: 'the answer' }],
      call: {
        sessionId: s.id,
        profileId: null,
        model: 'm',
        kind: 'chat',
        promptTokens: 5,
        cachedTokens: 0,
        completionTokens: 2,
      },
      memory: {
        refresh: {
          facts: [],
          candidates: [
            { category: 'goal', content: 'answer', source: 'cfpm_auto', decision: 'rejected', reason: 'duplicate' },
          ],
        },
        notice: {
          role: 'user',
          content: 'memory: noop',
          kind: 'runtime_notice',
          visibility: { user: true, agent: false },
        },
      },
    });
    expect(step.messages.map((m) => [m.content, m.parentId])).toEqual([['the answer', user!.id]]);
    // The notice comes after the step, the candidates are anchored on the step's last message.
    expect(step.notice).toMatchObject({ content: 'memory: noop', parentId: step.messages[0]!.id });
    expect(step.call).toMatchObject({ kind: 'chat', promptTokens: 5 });
    expect(step.memory?.candidates.map((c) => c.content)).toEqual(['answer']);
    expect(step.memory?.candidates).toEqual(store.memory.candidates(s.id));
    // The row after the step: what session.updated shows.
    expect(step.session).toEqual(store.sessions.get(s.id));
    expect(step.session.messageCount).toBe(2);

    // A step that cannot be stored whole leaves nothing behind.
    const before = store.messages.list(s.id).length;
    expect(() =>
      store.turns.commit(s.id, {
        messages: [{ role: 'assistant', content: 'lost' }],
        call: {
          sessionId: s.id,
          profileId: null,
          model: 'm',
          kind: 'nope' as 'chat',
          promptTokens: 1,
          cachedTokens: 0,
          completionTokens: 1,
        },
      }),
    ).toThrow(StoreError);
    expect(store.messages.list(s.id)).toHaveLength(before);
    expect(store.usage.calls(s.id).groups.reduce((n, g) => n + g.calls, 0)).toBe(1);
  });
});
