import { buildSummaryRequestMessages } from '@threadline/context';
import { startFakeLlm, type FakeLlm } from '@threadline/fake-llm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProviderClient, profileFromPreset } from '../index';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ model: 'main-model' });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

describe('complete', () => {
  it('answers on the compaction model when the profile has one, else the main model', async () => {
    const cheap = createProviderClient({ baseUrl: llm.url, model: 'main-model', compactionModel: 'cheap-model' }, 'k');
    expect(await cheap.complete({ messages: [{ role: 'user', content: 'hi' }] })).toBe('You said: hi');
    await cheap.complete({ messages: [{ role: 'user', content: 'hi' }], model: 'explicit' });
    const plain = createProviderClient({ baseUrl: llm.url, model: 'main-model' }, 'k');
    await plain.complete({ messages: [{ role: 'user', content: 'hi' }] });
    expect(llm.chatRequests().map((r) => (r.body as { model: string; stream?: boolean }).model)).toEqual([
      'cheap-model',
      'explicit',
      'main-model',
    ]);
    expect((llm.chatRequests()[0]!.body as { stream?: boolean }).stream).toBeUndefined();
  });

  it("gets fake-llm's deterministic summary for the engine's own summary prompt", async () => {
    const c = createProviderClient({ baseUrl: llm.url, model: 'main-model' }, null);
    const messages = buildSummaryRequestMessages({
      messages: [
        { role: 'user', content: 'Refactor src/db.ts' },
        { role: 'assistant', content: 'Done.' },
      ],
      previousSummaries: [],
      instructions: null,
      detail: 'standard',
      maxSummaryTokens: 1200,
      toolOutputsRemovedPercent: 0,
    });
    const summary = await c.complete({ messages });
    expect(llm.chatRequests()[0]!.isSummaryRequest).toBe(true);
    expect(summary).toMatch(/^Summary of the conversation so far/);
  });
});

describe('testConnection', () => {
  it('reports ok with latency when the model is listed', async () => {
    const r = await createProviderClient(
      profileFromPreset('ollama', { baseUrl: llm.url, model: 'main-model' }),
      null,
    ).testConnection();
    expect(r.ok).toBe(true);
    expect(r.message).toContain('"main-model" is available');
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a model the server does not have', async () => {
    const r = await createProviderClient({ baseUrl: llm.url, model: 'other' }, null).testConnection();
    expect(r).toMatchObject({ ok: false, latencyMs: expect.any(Number), problem: 'unknown_model' });
    // The sentence and the result name what the server does offer (here the fake's one model).
    expect(r.message).toContain('does not offer model "other"; it offers main-model.');
    expect(r.offered).toEqual(['main-model']);
  });

  it('reports a rejected key and an unreachable server', async () => {
    const keyed = await startFakeLlm({ apiKey: 'right' });
    const bad = await createProviderClient({ baseUrl: keyed.url, model: 'fake-model' }, 'wrong').testConnection();
    await keyed.close();
    expect(bad).toMatchObject({ ok: false, latencyMs: null, problem: 'auth' });
    expect(bad.message).toMatch(/API key.*401/);
    const down = await createProviderClient({ baseUrl: keyed.url, model: 'm' }, null).testConnection();
    expect(down.ok).toBe(false);
    expect(down.message).toMatch(/^Could not reach the provider \(connect ECONNREFUSED [^)]+\)\.$/);
    expect(down.problem).toBe('unreachable');
  });

  it('presets fill in the endpoint of each provider', () => {
    expect(profileFromPreset('lmstudio')).toMatchObject({ baseUrl: 'http://127.0.0.1:1234/v1', needsKey: false });
    expect(profileFromPreset('openrouter', { model: 'x' })).toMatchObject({
      baseUrl: 'https://openrouter.ai/api/v1',
      model: 'x',
      needsKey: true,
    });
  });
});
