import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { STRATEGIES, type ChatMessage } from '@threadline/protocol';
import {
  buildView,
  compact,
  compactOffThread,
  countTextTokens,
  historyFromChatMessages,
  isContextLimitError,
  refreshMemory,
  refreshMemoryOffThread,
  truncateToolOutput,
  truncateToolOutputAsync,
  type CompactInput,
  type Summarizer,
} from '../..';
import { loadTranscripts } from '../../cli/transcripts';
import { WorkPool, workPool } from '../../pool/pool';

/**
 * The work pool gives the results of the same calls made on this thread: counts (js-tiktoken's,
 * by the same code), truncations, compactions (byte for byte, ids and progress included) and
 * memory refreshes, over the real transcripts in fixtures/. The worker here starts from the
 * TypeScript sources (tsx's loader registered in the worker), as under `pnpm serve`.
 */
const MODEL = 'gpt-4o';
const transcripts = loadTranscripts();
const pool = workPool();

afterAll(async () => {
  // Every task above ran in a worker: none fell back to this thread.
  expect(pool.ran.inThread).toBe(0);
  expect(pool.ran.worker).toBeGreaterThan(transcripts.length * 3);
  await pool.close();
});

/** A deterministic id source: `p-1`, `p-2`, … (the ids a compaction makes must match). */
const counter = (prefix: string) => {
  let n = 0;
  return () => `${prefix}-${++n}`;
};

/** A summarizer that answers from what it was asked (so a different request gives a different note). */
const summarizer: Summarizer = async (r) =>
  `Summary of ${r.messages.length} messages (${r.detail}, ${r.maxSummaryTokens} tokens max): ` +
  r.messages
    .map((m) => (m.content ?? '').slice(0, 40))
    .join(' | ')
    .slice(0, 600);

describe('the work pool', () => {
  it('starts a worker here (vitest runs the TypeScript sources)', async () => {
    const n = await pool.run<number>('countText', { text: 'hello world', model: MODEL }, { inThread: () => -1 });
    expect(pool.usesWorkers).toBe(true);
    expect(n).toBe(countTextTokens('hello world', MODEL));
  });

  it('counts every transcript, and pathological texts, as this thread does', async () => {
    const texts = transcripts.map((t) => t.messages.map((m) => m.content ?? '').join('\n'));
    texts.push('x'.repeat(1_000_000), 'QUJD'.repeat(100_000), ' '.repeat(50_000) + '\n', '中文'.repeat(40_000));
    for (const text of texts) {
      const off = await pool.run<number>('countText', { text, model: MODEL }, { inThread: () => -1 });
      expect(off).toBe(countTextTokens(text, MODEL));
    }
  });

  it('truncates a large output as truncateToolOutput does', async () => {
    const biggest = transcripts
      .flatMap((t) => t.messages)
      .filter((m) => m.role === 'tool')
      .map((m) => m.content ?? '')
      .sort((a, b) => b.length - a.length)[0]!;
    for (const text of ['x'.repeat(1_000_000), biggest.repeat(Math.ceil(70_000 / biggest.length))]) {
      const opts = { model: MODEL, maxTokens: 5000, outputId: 'call_1' };
      expect(await truncateToolOutputAsync(text, opts)).toEqual(truncateToolOutput(text, opts));
    }
  });

  it('compacts every transcript byte for byte as compact() does here, ids and progress included', async () => {
    let applied = 0;
    let summarized = 0;
    for (const [i, t] of transcripts.entries()) {
      const history = historyFromChatMessages(t.messages, { model: MODEL, sessionId: 's' });
      const tokens = buildView({ history, model: MODEL }).tokens;
      const strategy = STRATEGIES[i % STRATEGIES.length]!;
      const run = async (off: boolean) => {
        const steps: string[] = [];
        const asked: number[] = [];
        const input: CompactInput = {
          history,
          strategy,
          model: MODEL,
          window: Math.ceil(tokens / 0.9),
          trigger: 'manual',
          systemPrompt: 'You are a coding agent.',
          summarizer: async (r) => {
            asked.push(r.messages.length);
            return summarizer(r);
          },
          newId: counter('id'),
          now: () => 1_700_000_000_000,
          onStep: (s) => steps.push(s),
          sessionId: 's',
        };
        const result = off ? await compactOffThread(input, { force: true }) : await compact(input);
        if (result.ok) applied++;
        if (asked.length > 0) summarized++;
        return JSON.stringify({ result, steps, asked });
      };
      const here = await run(false);
      expect(await run(true), `${t.name} (${strategy})`).toBe(here);
    }
    // The comparison covered real work: compactions applied, summaries asked for.
    expect(applied).toBeGreaterThan(transcripts.length);
    expect(summarized).toBeGreaterThan(0);
  });

  it("carries a summarizer's context-limit error to the engine as it is (the overflow fallback runs alike)", async () => {
    const t = transcripts.find((x) => x.messages.some((m) => m.role === 'tool'))!;
    const history = historyFromChatMessages(t.messages, { model: MODEL, sessionId: 's' });
    const tokens = buildView({ history, model: MODEL }).tokens;
    const run = async (off: boolean) => {
      let calls = 0;
      const input: CompactInput = {
        history,
        strategy: 'legacy_segmented',
        model: MODEL,
        window: Math.ceil(tokens / 0.9),
        trigger: 'manual',
        summarizer: async (r) => {
          if (calls++ === 0) {
            const err = Object.assign(new Error('400 This model maximum context length is 1000 tokens'), {
              status: 400,
              code: 'context_length_exceeded',
            });
            expect(isContextLimitError(err)).toBe(true);
            throw err;
          }
          return summarizer(r);
        },
        newId: counter('id'),
        now: () => 1,
      };
      const result = off ? await compactOffThread(input, { force: true }) : await compact(input);
      return { json: JSON.stringify({ result, calls }), calls };
    };
    const here = await run(false);
    // The engine took the error for a context-limit one and asked again with less.
    expect(here.calls).toBeGreaterThan(1);
    expect((await run(true)).json).toBe(here.json);
  });

  it('refreshes memory over every transcript as refreshMemory() does here', async () => {
    for (const t of transcripts) {
      const messages: ChatMessage[] = t.messages;
      const input = { sessionId: 's', messages, now: 1_700_000_000_000 };
      const here = refreshMemory({ ...input, newId: counter('c') });
      const off = await refreshMemoryOffThread({ ...input, newId: counter('c') }, { force: true });
      expect(JSON.stringify(off), t.name).toBe(JSON.stringify(here));
    }
  });

  it('runs a task in-thread, with one line logged, when no worker can start', async () => {
    const lines: string[] = [];
    const broken = new WorkPool(1, null, (l) => lines.push(l));
    const calls: string[] = [];
    const result = await broken.run<string>(
      'countText',
      { text: 'a', model: MODEL },
      {
        inThread: () => {
          calls.push('inThread');
          return 'here';
        },
      },
    );
    expect(result).toBe('here');
    expect(calls).toEqual(['inThread']);
    expect(broken.usesWorkers).toBe(false);
    expect(lines).toEqual([expect.stringMatching(/work pool is off \(no worker file/)]);
  });

  it('runs its tasks in-thread, with one line logged, when the worker fails to start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-pool-'));
    const file = join(dir, 'contextWorker.js');
    writeFileSync(file, 'throw new Error("cannot load");\n');
    const lines: string[] = [];
    const broken = new WorkPool(1, { url: pathToFileURL(file), typescript: false }, (l) => lines.push(l));
    try {
      const results = await Promise.all(
        [1, 2, 3].map((n) => broken.run<number>('countText', { text: 'a', model: MODEL }, { inThread: () => n })),
      );
      expect(results).toEqual([1, 2, 3]);
      expect(broken.ran).toEqual({ worker: 0, inThread: 3, tasks: {} });
      expect(lines).toEqual([expect.stringMatching(/work pool is off \(worker error: cannot load\)/)]);
      // From now on in-thread at once, nothing more logged.
      expect(await broken.run<number>('countText', {}, { inThread: () => 4 })).toBe(4);
      expect(lines).toHaveLength(1);
    } finally {
      await broken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
