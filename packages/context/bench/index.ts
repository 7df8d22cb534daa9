/**
 * Context engine benchmarks (SPEC §8), printed as tables. Called by the root `pnpm bench`
 * (scripts/bench.ts) and by `threadline-context bench`.
 */
import { existsSync } from 'node:fs';
import { STRATEGIES, toChatMessage, type ChatMessage, type StoredMessage } from '@threadline/protocol';
import {
  buildMemoryBlock,
  buildView,
  compact,
  countMessageTokens,
  editedFiles,
  extractiveSummarizer,
  historyFromChatMessages,
  isChitchat,
  MemoryTokenCache,
  pairViolations,
  pathRecall,
  refreshMemory,
  toCompactionRecord,
} from '../src/index';
import { loadTranscripts } from '../src/cli/transcripts';
import { generateSession } from './generate';
import { p50, table, time } from './stats';

const MODEL = 'gpt-4o';
const out = (s = '') => process.stdout.write(s + '\n');
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

function textOf(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => [m.content ?? '', ...(m.tool_calls ?? []).map((c) => c.function.arguments)].join('\n'))
    .join('\n');
}

/** Generated 2,000-message session: cold counting, warm view assembly, deterministic compaction. */
async function sessionBench(quick: boolean): Promise<void> {
  const iterations = quick ? 7 : 31;
  const raw = generateSession(2000);
  // Build the encoder first so the cold figure measures counting, not loading the BPE ranks.
  countMessageTokens({ role: 'user', content: 'warm up the encoder' }, MODEL, new MemoryTokenCache());
  const bytes = raw.reduce((n, m) => n + Buffer.byteLength(textOf([m]), 'utf8'), 0);
  const cold = new MemoryTokenCache();
  const t0 = performance.now();
  const counted: StoredMessage[] = raw.map((m) => ({
    ...m,
    tokens: countMessageTokens(toChatMessage(m), MODEL, cold),
  }));
  const coldMs = performance.now() - t0;
  const total = counted.reduce((n, m) => n + (m.tokens ?? 0), 0);

  // A reopened session: counts come from StoredMessage.tokens, so nothing is recounted.
  const reopen = new MemoryTokenCache();
  buildView({ history: counted, model: MODEL, tokenCache: reopen });
  const facts = refreshMemory({
    sessionId: 'bench',
    messages: counted.slice(-200).map(toChatMessage),
    now: 0,
    newId: (() => {
      let i = 0;
      return () => `f${++i}`;
    })(),
  }).facts;
  const memoryBlock = buildMemoryBlock(facts);
  const systemPrompt = 'You are Threadline, a careful local agent.';
  const warmCache = new MemoryTokenCache();
  buildView({ history: counted, model: MODEL, systemPrompt, memoryBlock, tokenCache: warmCache });
  const viewTimes = await time(iterations, () =>
    buildView({ history: counted, model: MODEL, systemPrompt, memoryBlock, tokenCache: warmCache }),
  );
  const view = buildView({ history: counted, model: MODEL, systemPrompt, memoryBlock, tokenCache: warmCache });

  const window = Math.ceil(view.tokens / 0.9);
  const runs: Array<[string, number[], string]> = [];
  for (const strategy of ['cfpm_memory_v1', 'priority_chain'] as const) {
    const cache = new MemoryTokenCache();
    let last = '';
    const times = await time(iterations, async () => {
      const r = await compact({
        history: counted,
        strategy,
        model: MODEL,
        window,
        trigger: 'auto',
        summarizer: async () => 'Fixed summary text for the benchmark.',
        memoryBlock,
        memoryFacts: facts,
        tokenCache: cache,
        now: () => 0,
      });
      last = r.ok ? `${r.tokensBefore} → ${r.tokensAfter} tokens` : `failed: ${r.reason}`;
    });
    runs.push([strategy, times, last]);
  }

  out(
    `## Generated session: ${counted.length} messages, ${total} tokens (${MODEL}), ${(bytes / 1e6).toFixed(2)} MB of text`,
  );
  out(
    table(
      ['figure', 'p50', 'target', 'note'],
      [
        [
          'view assembly + token accounting (warm)',
          fmt(p50(viewTimes)),
          '≤ 15 ms',
          `${view.tokens} tokens in view, ${iterations} runs`,
        ],
        ...runs.map(([s, t, note]) => [`deterministic compaction ${s}`, fmt(p50(t)), '≤ 50 ms', note]),
        [
          'cold token counting',
          `${(bytes / 1e6 / (coldMs / 1000)).toFixed(2)} MB/s`,
          'report',
          `${coldMs.toFixed(0)} ms for ${counted.length} messages`,
        ],
        ['reopened session recount', `${reopen.misses} msgs`, '0', 'persisted StoredMessage.tokens reused'],
      ],
    ),
  );
}

/** Strategy × transcript quality table. */
async function transcriptBench(dir: string, quick: boolean): Promise<void> {
  if (!existsSync(dir)) {
    out(`## Transcripts: skipped (no folder at ${dir})`);
    return;
  }
  const transcripts = loadTranscripts(dir).slice(0, quick ? 4 : undefined);
  const rows: Array<Array<string | number>> = [];
  const totals = new Map<string, { ok: number; red: number; viol: number; recall: number }>();
  for (const t of transcripts) {
    const history = historyFromChatMessages(t.messages, { model: MODEL, sessionId: 't' });
    const files = editedFiles(t.messages);
    const users = history.filter((m) => m.role === 'user' && !isChitchat(m.content));
    const before = buildView({ history, model: MODEL });
    const window = Math.ceil(before.tokens / 0.9);
    for (const strategy of STRATEGIES) {
      let memoryBlock: string | null = null;
      let facts: ReturnType<typeof refreshMemory>['facts'] = [];
      if (strategy === 'cfpm_memory_v1' || strategy === 'priority_chain') {
        let i = 0;
        facts = refreshMemory({
          sessionId: 't',
          messages: history.map(toChatMessage),
          now: 0,
          newId: () => `f${++i}`,
        }).facts;
        memoryBlock = buildMemoryBlock(facts);
      }
      const r = await compact({
        history,
        strategy,
        model: MODEL,
        window,
        trigger: 'auto',
        summarizer: extractiveSummarizer,
        memoryBlock,
        memoryFacts: facts,
        now: () => 0,
      });
      const applied = r.ok ? [toCompactionRecord(r, { sessionId: 't', createdAt: 0 })] : [];
      const after = buildView({
        history: r.ok ? [...history, ...r.inserted] : history,
        compactions: applied,
        model: MODEL,
        memoryBlock,
      });
      const v = pairViolations(after.messages);
      const viol = v.orphanResults.length + v.unansweredCalls.length;
      const hidden = new Set(r.hiddenIds);
      const kept = users.filter((u) => !hidden.has(u.id)).length;
      const recall = pathRecall(textOf(after.messages), files);
      const red = r.ok ? (1 - r.tokensAfter / r.tokensBefore) * 100 : 0;
      rows.push([
        t.name.slice(0, 34),
        strategy,
        r.tokensBefore,
        r.ok ? r.tokensAfter : `— ${r.reason}`,
        `${red.toFixed(1)}%`,
        viol,
        `${kept}/${users.length}`,
        files.length ? `${recall.named.length}/${files.length}` : '-',
      ]);
      const tot = totals.get(strategy) ?? { ok: 0, red: 0, viol: 0, recall: 0 };
      tot.ok += r.ok ? 1 : 0;
      tot.red += red;
      tot.viol += viol;
      tot.recall += recall.recall;
      totals.set(strategy, tot);
    }
  }
  out(
    `## Transcripts (${transcripts.length}): window = tokens / 0.9, auto trigger, target 60%, extractive summaries (no model call)`,
  );
  out(
    table(['transcript', 'strategy', 'before', 'after', 'reduction', 'pair viol.', 'users kept', 'path recall'], rows),
  );
  out();
  out(
    table(
      ['strategy', 'compacted', 'mean reduction', 'pair violations', 'mean path recall'],
      [...totals].map(([s, x]) => [
        s,
        `${x.ok}/${transcripts.length}`,
        `${(x.red / transcripts.length).toFixed(1)}%`,
        x.viol,
        `${((x.recall / transcripts.length) * 100).toFixed(1)}%`,
      ]),
    ),
  );
}

export async function runContextBench(opts: { transcriptsDir: string; quick?: boolean }): Promise<void> {
  out('# Context engine benchmarks');
  await sessionBench(opts.quick ?? false);
  out();
  await transcriptBench(opts.transcriptsDir, opts.quick ?? false);
}
