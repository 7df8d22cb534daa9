import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm } from '../index';

let llm: FakeLlm;
let client: OpenAI;
beforeAll(async () => {
  llm = await startFakeLlm();
  client = new OpenAI({ baseURL: llm.url, apiKey: 'test', maxRetries: 0 });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

/** Waits on events, not time: long enough for a busy machine. */
const until = (check: () => void) => vi.waitFor(check, { timeout: 15_000, interval: 20 });
/** Sent at once (the SDK's promise is sent when awaited or then'd). */
const ask = (text: string, signal?: AbortSignal) =>
  client.chat.completions
    .create({ model: 'm', messages: [{ role: 'user', content: text }] }, { signal })
    .then((answer) => answer);

describe('holds', () => {
  it('keeps matching requests waiting until released, and records how many were in flight', async () => {
    const hold = llm.hold((req) => req.lastUserText.startsWith('held'));
    const answers = [ask('held 1'), ask('held 2'), ask('held 3')];
    await until(() => expect(hold.held()).toBe(3));
    // Others pass the hold by.
    expect((await ask('free')).choices[0]!.message.content).toBe('You said: free');
    hold.release();
    const texts = (await Promise.all(answers)).map((a) => a.choices[0]!.message.content);
    expect(texts).toEqual(['You said: held 1', 'You said: held 2', 'You said: held 3']);
    const concurrent = llm.chatRequests().map((r) => r.concurrent);
    // The three held ones overlapped; the free one came while they waited.
    expect(Math.max(...concurrent.map(Number))).toBe(4);
    // Released: later matching requests are answered at once.
    expect((await ask('held 4')).choices[0]!.message.content).toBe('You said: held 4');
  });

  it('a request whose client leaves stops waiting', async () => {
    const hold = llm.hold(() => true);
    const abort = new AbortController();
    const gone = ask('held', abort.signal).catch((e: unknown) => e);
    await until(() => expect(hold.held()).toBe(1));
    abort.abort();
    await gone;
    await until(() => expect(hold.held()).toBe(0));
    expect(llm.chatRequests()[0]!.clientClosed).toBe(true);
  });

  it('one request at a time is in flight alone', async () => {
    for (const t of ['a', 'b', 'c']) await ask(t);
    expect(llm.chatRequests().map((r) => r.concurrent)).toEqual([1, 1, 1]);
  });
});
