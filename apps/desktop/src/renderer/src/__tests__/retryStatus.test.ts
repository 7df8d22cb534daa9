import { beforeEach, describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { retryText } from '../components/MessageList';
import { createAppStore, connectEvents } from '../store';
import { setBridge } from '../transport';
import { createFakeBridge } from './fakeBridge';
import { session } from './fixtures';

describe('a provider retry while the user waits', () => {
  let store: ReturnType<typeof createAppStore>;
  let fake: ReturnType<typeof createFakeBridge>;
  const retrying = (attempt: number, delayMs: number | null, reason: 'rate_limit' | 'server' = 'rate_limit') =>
    fake.emit({ type: 'provider.retrying', sessionId: 's1', attempt, maxRetries: 3, delayMs, reason });

  beforeEach(() => {
    fake = createFakeBridge({});
    setBridge(fake.bridge);
    store = createAppStore();
    connectEvents(store);
  });

  it('is the latest retry of its session until text, a tool call, an error or the turn end', () => {
    for (const end of [
      () => fake.emit({ type: 'message.delta', sessionId: 's1', messageId: 'a1', delta: 'Hi' }),
      () =>
        fake.emit({
          type: 'tool.requested',
          sessionId: 's1',
          messageId: 'a1',
          needsApproval: false,
          toolCall: { id: 'c1', type: 'function', function: { name: 'shell', arguments: '{}' } },
        }),
      () => fake.emit({ type: 'error', sessionId: 's1', code: 'provider_error', message: 'gave up' }),
      () => fake.emit({ type: 'session.updated', sessionId: 's1', session: session('s1'), busy: false }),
    ]) {
      retrying(1, 20_000);
      retrying(2, null, 'server');
      expect(store.getState().bySession.s1?.retrying).toEqual({
        attempt: 2,
        maxRetries: 3,
        delayMs: null,
        reason: 'server',
      });
      // Another session's retry is its own.
      fake.emit({
        type: 'provider.retrying',
        sessionId: 's2',
        attempt: 1,
        maxRetries: 3,
        delayMs: 0,
        reason: 'network',
      });
      end();
      expect(store.getState().bySession.s1?.retrying ?? null).toBeNull();
      expect(store.getState().bySession.s2?.retrying?.reason).toBe('network');
    }
  });

  it('says the reason, the wait the provider asked for (a second or more) and the attempt, in both languages', async () => {
    const status = { attempt: 1, maxRetries: 3, delayMs: 20_000, reason: 'rate_limit' as const };
    await i18n.changeLanguage('en');
    expect(retryText(i18n.t, status)).toBe('The provider is limiting requests; trying again in 20 s (attempt 1 of 3).');
    expect(retryText(i18n.t, { ...status, delayMs: 400, reason: 'server' })).toBe(
      'The provider had a server error; trying again (attempt 1 of 3).',
    );
    expect(retryText(i18n.t, { ...status, delayMs: null, reason: 'network', attempt: 3 })).toBe(
      'The provider could not be reached; trying again (attempt 3 of 3).',
    );
    await i18n.changeLanguage('zh-CN');
    expect(retryText(i18n.t, { ...status, delayMs: 1_500 })).toBe(
      '服务商正在限制请求，2 秒后重试（第 1 次，共 3 次）。',
    );
    await i18n.changeLanguage('en');
  });
});
