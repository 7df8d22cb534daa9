import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { compact, isContextLimitError } from '../..';
import { providerSummarizer, ProviderError } from '../providerSummarizer';
import { HistoryBuilder } from '../../compaction/__tests__/fixtures';

let server: Server | null = null;
afterEach(() => {
  server?.close();
  server = null;
});

/** A tiny OpenAI-compatible endpoint that overflows on long prompts, like a real one. */
async function fakeProvider(limitChars: number, seen: string[]): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push(req.headers['authorization'] ?? '');
      res.setHeader('content-type', 'application/json');
      if (body.length > limitChars) {
        res.statusCode = 400;
        res.end(
          JSON.stringify({
            error: {
              message: `This model's maximum context length is 4096 tokens. However, your messages resulted in ${Math.round(body.length / 4)} tokens.`,
              type: 'invalid_request_error',
              code: 'context_length_exceeded',
            },
          }),
        );
        return;
      }
      res.end(
        JSON.stringify({ choices: [{ message: { role: 'assistant', content: `summary of ${body.length} chars` } }] }),
      );
    });
  });
  await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1/`;
}

describe('providerSummarizer', () => {
  it('surfaces a provider overflow as a context-limit error, and compact falls back middle-out over real HTTP', async () => {
    const seen: string[] = [];
    const url = await fakeProvider(30_000, seen);
    const h = new HistoryBuilder();
    h.system();
    for (let i = 0; i < 6; i++) h.segment(`task ${i}`, 3, 3000);
    const summarizer = providerSummarizer({ baseUrl: url, model: 'm', apiKey: 'sk-test' });
    const r = await compact({
      history: h.messages,
      strategy: 'legacy_segmented',
      model: 'test-model',
      window: 100_000,
      trigger: 'manual',
      summarizer,
    });
    expect(r.ok).toBe(true);
    const step = r.steps.find((s) => s.name === 'summarize')!;
    expect(step['toolOutputsRemovedPercent']).toBeGreaterThan(0);
    expect(r.summary).toMatch(/^summary of \d+ chars$/);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen[0]).toBe('Bearer sk-test');
  });

  it('throws a ProviderError that keeps status and body', async () => {
    const url = await fakeProvider(10, []);
    const s = providerSummarizer({ baseUrl: url, model: 'm' });
    const err = await s({
      messages: [{ role: 'user', content: 'hello there' }],
      previousSummaries: [],
      instructions: null,
      detail: 'standard',
      maxSummaryTokens: 100,
      toolOutputsRemovedPercent: 0,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).status).toBe(400);
    expect(isContextLimitError(err)).toBe(true);
  });
});
