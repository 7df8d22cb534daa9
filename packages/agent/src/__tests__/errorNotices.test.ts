import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { ERROR_NOTICE_PREFIX, ErrorNoticePayloadSchema, parseNotice, type StoredMessage } from '@threadline/protocol';
import { startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

/** The error notices of a history, parsed: each must be a valid structured notice. */
function errorPayloads(history: StoredMessage[]) {
  return history
    .filter((m) => m.kind === 'error_notice' && (m.content ?? '').startsWith(ERROR_NOTICE_PREFIX))
    .map((m) => {
      const parsed = parseNotice(m.content);
      if (parsed?.type !== 'error') throw new Error(`not an error notice: ${m.content}`);
      expect(m.visibility).toEqual({ user: true, agent: false });
      return ErrorNoticePayloadSchema.parse(parsed.payload);
    });
}

describe('error notices are structured', () => {
  it('provider_error carries the provider message', async () => {
    h = await startHarness({ llm: { defaultReply: { error: { status: 400, message: 'the model is on strike' } } } });
    await h.turn('hello');
    const [p] = errorPayloads(h.history());
    expect(p.type).toBe('provider_error');
    expect(p.message).toMatch(/the model is on strike/);
    expect(h.history().some((m) => (m.content ?? '').startsWith('Provider error'))).toBe(false);
  });

  it('max_model_calls carries the per-turn limit', async () => {
    let n = 0;
    h = await startHarness({
      api: { maxModelCalls: 2 },
      llm: {
        defaultReply: (): FakeReply => ({ toolCalls: [{ name: 'list_dir', arguments: { path: `dir-${++n}` } }] }),
      },
    });
    await h.turn('keep going');
    expect(errorPayloads(h.history())).toEqual([{ version: 'v1', type: 'max_model_calls', limit: 2 }]);
  });

  it('doom_loop names the tool and the configured limit (not a fixed 3)', async () => {
    h = await startHarness({
      api: { doomLoopLimit: 2 },
      llm: { defaultReply: (): FakeReply => ({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] }) },
    });
    await h.turn('loop');
    expect(h.llm.chatRequests().length).toBe(2);
    expect(errorPayloads(h.history())).toEqual([{ version: 'v1', type: 'doom_loop', tool: 'list_dir', limit: 2 }]);
  });
});

describe('a retry is shown while the user waits', () => {
  it('each retry of the model call is an event naming the attempt, the reason and the asked wait', async () => {
    h = await startHarness();
    h.llm.enqueue(
      { error: { status: 429, headers: { 'retry-after-ms': '0' } } },
      { error: { status: 503, headers: { 'retry-after-ms': '0' } } },
    );
    await h.turn('hello');
    const retries = h.events.filter((e) => e.type === 'provider.retrying');
    expect(retries).toEqual([
      {
        type: 'provider.retrying',
        sessionId: h.sessionId,
        attempt: 1,
        maxRetries: 3,
        delayMs: 0,
        reason: 'rate_limit',
      },
      { type: 'provider.retrying', sessionId: h.sessionId, attempt: 2, maxRetries: 3, delayMs: 0, reason: 'server' },
    ]);
    // Retried, not failed: the answer came and no error notice was left.
    expect(h.history().at(-1)?.content).toBe('You said: hello');
    expect(errorPayloads(h.history())).toEqual([]);
  });
});
