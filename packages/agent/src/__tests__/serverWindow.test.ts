import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply, LocalServerOptions } from '@threadline/fake-llm';
import type { PresetId, ProviderProfile } from '@threadline/protocol';
import { lastIsTool, startHarness, type Harness } from './harness';

/**
 * Issue 36 point 5: the real window of local servers, read from the server when a profile is
 * saved (and on request), with fake-llm answering each server's own endpoints as the server does:
 * Ollama's /api/show and /api/ps (and its silent cut of a prompt over num_ctx), LM Studio's
 * /api/v1/models, llama.cpp's /props, vLLM's /v1/models.
 */
let h: Harness;
afterEach(async () => h?.close());

async function saveAs(preset: PresetId, contextWindow: number, model = 'qwen2.5:7b'): Promise<ProviderProfile> {
  const p = h.store.providers.active()!;
  return h.api['providers.upsert']({ id: p.id, preset, name: p.name, baseUrl: h.llm.url, model, contextWindow });
}

const localPaths = (x: Harness) =>
  x.llm.requests.map((r) => `${r.method} ${r.path}`).filter((p) => !p.includes('/chat/'));

describe('the window a local server runs the model with', () => {
  const cases: [string, PresetId, LocalServerOptions, object][] = [
    [
      'Ollama, num_ctx in the model',
      'ollama',
      { kind: 'ollama', contextLength: 32_768, numCtx: 8_192, numCtxInParameters: true },
      { source: 'ollama', window: 8_192, modelMax: 32_768, field: 'num_ctx' },
    ],
    [
      'Ollama, loaded with its default',
      'ollama',
      { kind: 'ollama', contextLength: 32_768, numCtx: 4_096, loaded: true },
      { source: 'ollama', window: 4_096, modelMax: 32_768, field: 'context_length_loaded' },
    ],
    [
      'LM Studio',
      'lmstudio',
      { kind: 'lmstudio', contextLength: 131_072, numCtx: 16_384 },
      { source: 'lmstudio', window: 16_384, modelMax: 131_072, field: 'loaded_context_length' },
    ],
    [
      'llama.cpp server',
      'custom',
      { kind: 'llamacpp', contextLength: 32_768, numCtx: 12_288 },
      { source: 'llamacpp', window: 12_288, field: 'n_ctx' },
    ],
    [
      'vLLM',
      'custom',
      { kind: 'vllm', contextLength: 32_768, numCtx: 24_576 },
      { source: 'vllm', window: 24_576, field: 'max_model_len' },
    ],
  ];
  it.each(cases)(
    '%s: read when saved, shown with where it came from, and the runtime works with it',
    async (_n, preset, local, expected) => {
      h = await startHarness({ llm: { local, models: ['qwen2.5:7b'] } });
      // Ollama at its own num_ctx (a larger window makes it run with that one: below); the others over theirs.
      const saved = await saveAs(preset, preset === 'ollama' ? local.numCtx : 8_192 * 4);
      expect(saved.serverWindow).toMatchObject({ ...expected, model: 'qwen2.5:7b', alias: null });
      const usage = await h.api['context.usage']({ sessionId: h.sessionId });
      // Ollama: the user's larger window is what the app runs it with (next test); the others cap it.
      if (preset !== 'ollama') expect(usage.window).toBe(local.numCtx);
      // The user can still set a smaller window: it wins.
      const smaller = await saveAs(preset, 2_000);
      expect((await h.api['context.usage']({ sessionId: h.sessionId })).window).toBe(2_000);
      expect(smaller.serverWindow?.source).toBe(expected['source' as keyof typeof expected]);
    },
  );

  it('a hosted provider is never asked; a model the server lacks gives nothing', async () => {
    h = await startHarness({ llm: { local: { kind: 'ollama', contextLength: 32_768, numCtx: 8_192 } } });
    const hosted = await saveAs('openai', 128_000);
    expect(hosted.serverWindow ?? null).toBeNull();
    expect(localPaths(h), JSON.stringify(localPaths(h))).toEqual([]);
    const missing = await saveAs('ollama', 8_192, 'no-such-model');
    expect(missing.serverWindow ?? null).toBeNull();
  });
});

describe('Ollama cuts what does not fit, silently', () => {
  const reply = () => {
    let n = 0;
    return (req: Parameters<typeof lastIsTool>[0]): FakeReply =>
      lastIsTool(req)
        ? { content: `batch ${n} read` }
        : { toolCalls: [{ name: 'shell', arguments: { command: `seq ${++n * 1000} ${n * 1000 + 400}` } }] };
  };

  it('over its num_ctx the fake drops the oldest messages and answers 200; knowing the window, the app never sends that much', async () => {
    // The profile believes 32K; Ollama runs the model with 4,096.
    const local: LocalServerOptions = { kind: 'ollama', contextLength: 32_768, numCtx: 4_096, loaded: true };
    const run = async (readFirst: boolean) => {
      h = await startHarness({
        window: 32_768,
        settings: { approvalPolicy: 'auto' },
        llm: { local, models: ['fake-model'], defaultReply: reply() },
      });
      if (readFirst) {
        const p = h.store.providers.active()!;
        const saved = await h.api['providers.upsert']({
          id: p.id,
          preset: 'ollama',
          name: p.name,
          baseUrl: h.llm.url,
          model: 'fake-model',
          contextWindow: 4_096,
        });
        expect(saved.serverWindow).toMatchObject({ window: 4_096, field: 'context_length_loaded' });
      }
      for (let t = 1; t <= 6; t++) await h.turn(`turn ${t}: print the next batch`);
      return h.llm.chatRequests();
    };
    const blind = await run(false);
    await h.close(); // (the second harness is closed by afterEach)
    const cut = blind.filter((r) => (r.silentlyDropped ?? 0) > 0);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.every((r) => r.status === 200)).toBe(true);
    const knowing = await run(true);
    expect(knowing.length).toBeGreaterThan(6);
    expect(knowing.filter((r) => (r.silentlyDropped ?? 0) > 0)).toEqual([]);
  }, 180_000);

  it('a larger window than num_ctx: the app has Ollama make the model with that num_ctx and sends its requests there', async () => {
    const local: LocalServerOptions = {
      kind: 'ollama',
      contextLength: 32_768,
      numCtx: 4_096,
      numCtxInParameters: true,
    };
    h = await startHarness({
      window: 16_384,
      settings: { approvalPolicy: 'auto' },
      llm: { local, models: ['qwen2.5:7b'], defaultReply: reply() },
    });
    const saved = await saveAs('ollama', 16_384);
    expect(saved.serverWindow).toMatchObject({
      window: 16_384,
      modelMax: 32_768,
      field: 'num_ctx',
      alias: 'qwen2.5:7b-ctx16384',
    });
    const create = h.llm.requests.find((r) => r.path === '/api/create');
    expect(create?.body).toMatchObject({
      model: 'qwen2.5:7b-ctx16384',
      from: 'qwen2.5:7b',
      parameters: { num_ctx: 16_384 },
    });
    for (let t = 1; t <= 5; t++) await h.turn(`turn ${t}: print the next batch`);
    const chats = h.llm.chatRequests();
    expect(chats.every((r) => (r.body as { model: string }).model === 'qwen2.5:7b-ctx16384')).toBe(true);
    // Over the old 4,096 and nothing dropped.
    expect(chats.some((r) => (r.promptTokens ?? 0) > 4_096)).toBe(true);
    expect(chats.filter((r) => (r.silentlyDropped ?? 0) > 0)).toEqual([]);
    expect((await h.api['context.usage']({ sessionId: h.sessionId })).window).toBe(16_384);
    // Beyond what the model itself takes: capped at its context_length.
    const capped = await saveAs('ollama', 100_000);
    expect(capped.serverWindow).toMatchObject({ window: 32_768, alias: 'qwen2.5:7b-ctx32768' });
  }, 180_000);
});
