import { describe, expect, it } from 'vitest';
import { StoreError } from '../types';
import { useTempDir } from './helpers';

const tmp = useTempDir();
const DAY = 86_400_000;

describe('model calls and prices', () => {
  it('groups a session’s calls by model, kind and compaction; days in the caller’s time zone', () => {
    const clock = { t: Date.UTC(2026, 0, 10, 23, 30) };
    const store = tmp.open({ now: () => clock.t });
    const s = store.sessions.create('a');
    const call = (kind: 'chat' | 'summary' | 'title', prompt: number, cached: number) =>
      store.usage.record({
        sessionId: s.id,
        profileId: null,
        model: 'gpt-4.1',
        kind,
        promptTokens: prompt,
        cachedTokens: cached,
        completionTokens: 10,
      });
    call('chat', 1000, 0);
    call('chat', 1200, 1000);
    const sum = call('summary', 1300, 1200);
    store.usage.linkCompaction([sum.id], 'c1');
    // A provider never reads more from its cache than it was sent: the row says what was stored.
    expect(call('chat', 100, 5000)).toMatchObject({ promptTokens: 100, cachedTokens: 100, compactionId: null });
    const groups = store.usage.sessionGroups(s.id);
    expect(groups).toEqual([
      {
        profileId: null,
        model: 'gpt-4.1',
        kind: 'chat',
        compactionId: null,
        calls: 3,
        promptTokens: 2300,
        cachedTokens: 1100,
        completionTokens: 30,
      },
      {
        profileId: null,
        model: 'gpt-4.1',
        kind: 'summary',
        compactionId: 'c1',
        calls: 1,
        promptTokens: 1300,
        cachedTokens: 1200,
        completionTokens: 10,
      },
    ]);
    expect(store.usage.lastCallAt(s.id)).toBe(clock.t);
    // A title request keeps no cache of the conversation warm: it does not move lastCallAt.
    const at = clock.t;
    clock.t += 60_000;
    call('title', 50, 0);
    expect(store.usage.lastCallAt(s.id)).toBe(at);
    clock.t = at;
    // 23:30 UTC is the 10th in UTC and the 11th at UTC+8.
    expect(store.usage.dailyGroups(clock.t - DAY, 0).map((r) => r.day)).toEqual(['2026-01-10']);
    expect(store.usage.dailyGroups(clock.t - DAY, 480).map((r) => [r.day, r.calls])).toEqual([['2026-01-11', 5]]);
    // Deleting the session keeps the spending.
    store.sessions.delete(s.id);
    expect(store.usage.dailyGroups(0, 0)[0]!.calls).toBe(5);
  });

  it('keeps a profile’s own prices, removes them with null, refuses a bad one, and goes with the profile', () => {
    const store = tmp.open({ allowPlaintextKeys: true });
    const p = store.providers.upsert({
      preset: 'custom',
      name: 'x',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      contextWindow: 1000,
    });
    store.usage.setPrice(p.id, 'm', { input: 1, cachedInput: 0.1, output: 2 });
    expect(store.usage.prices(p.id)).toEqual({ m: { input: 1, cachedInput: 0.1, output: 2 } });
    expect(() => store.usage.setPrice(p.id, 'm', { input: -1, cachedInput: 0, output: 0 })).toThrow(StoreError);
    store.usage.setPrice(p.id, 'm', null);
    expect(store.usage.prices(p.id)).toEqual({});
    store.usage.setPrice(p.id, 'm', { input: 1, cachedInput: 0.1, output: 2 });
    store.providers.delete(p.id);
    expect(store.usage.prices(p.id)).toEqual({});
  });
});
