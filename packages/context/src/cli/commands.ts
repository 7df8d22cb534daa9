import path from 'node:path';
import type { ChatMessage, MemoryCandidate, MemoryFact, StoredMessage } from '@threadline/protocol';
import { DEFAULT_SETTINGS, toChatMessage } from '@threadline/protocol';
import { buildView } from '../view/buildView';
import { historyFromChatMessages } from '../view/ingest';
import { contextWindowFor, encodingForModel } from '../tokens/models';
import { compact, compactionStats, toCompactionRecord } from '../compaction/compact';
import { orderAgentMessages } from '../view/order';
import { shouldAutoCompact } from '../compaction/triggers';
import { extractiveSummarizer } from '../compaction/extractive';
import type { Summarizer } from '../compaction/prompts';
import { buildMemoryBlock, formatRuntimeNotice, refreshMemory } from '../memory';
import { positiveIntArg, strategyArg, thresholdArg, type ParsedArgs } from './args';
import { providerSummarizer } from './providerSummarizer';
import { InputError, readChatFile } from './transcripts';

export interface CliIo {
  out: (line: string) => void;
}

const DEFAULT_MODEL = 'gpt-4o';

function fileArg(args: ParsedArgs, command: string): string {
  const file = args.positional[0];
  if (!file) throw new InputError(`${command}: missing <file> (a JSON array of chat messages or {"messages": [...]})`);
  if (args.positional.length > 1) throw new InputError(`${command}: unexpected argument '${args.positional[1]}'`);
  return path.resolve(file);
}

/** `count <file>`: tokens of the file as the app would send it (tool outputs cut at write time). */
export function runCount(args: ParsedArgs, io: CliIo): number {
  const file = fileArg(args, 'count');
  const model = args.values.model ?? DEFAULT_MODEL;
  const window = positiveIntArg('window', args.values.window) ?? contextWindowFor(model);
  const messages = readChatFile(file);
  const history = historyFromChatMessages(messages, { model, sessionId: 'cli' });
  const view = buildView({ history, model });
  const truncated = history.filter((m) => m.fullOutput).length;
  const report = {
    file,
    model,
    encoding: encodingForModel(model),
    messages: messages.length,
    tokens: view.tokens,
    window,
    percent: Math.round((view.tokens / window) * 1000) / 10,
    breakdown: view.breakdown,
    truncatedToolOutputs: truncated,
  };
  if (args.flags.has('json')) io.out(JSON.stringify(report));
  else {
    io.out(
      `${report.messages} messages, ${report.tokens} tokens (${report.encoding}) = ${report.percent}% of ${window}`,
    );
    const b = view.breakdown;
    io.out(
      `system ${b.system} · memory ${b.memory} · summaries ${b.summaries} · messages ${b.messages} · tool outputs ${b.toolOutputs}; ${truncated} tool outputs truncated at write time`,
    );
  }
  return 0;
}

function summarizerFor(args: ParsedArgs, model: string): { summarizer: Summarizer; source: string } {
  const fixed = args.values['summary-text'];
  const url = args.values['provider-url'];
  if (fixed !== undefined && url !== undefined) throw new InputError('--summary-text and --provider-url are exclusive');
  if (fixed !== undefined) return { summarizer: async () => fixed, source: 'fixed' };
  if (url !== undefined) {
    if (!/^https?:\/\//.test(url)) throw new InputError(`--provider-url must be an http(s) URL, got '${url}'`);
    return {
      summarizer: providerSummarizer({ baseUrl: url, model, apiKey: process.env['OPENAI_API_KEY'] }),
      source: 'provider',
    };
  }
  return { summarizer: extractiveSummarizer, source: 'extractive' };
}

/** `compact <file> [options]`. */
export async function runCompact(args: ParsedArgs, io: CliIo): Promise<number> {
  const file = fileArg(args, 'compact');
  const strategy = strategyArg(args.values.strategy);
  const model = args.values.model ?? DEFAULT_MODEL;
  const window = positiveIntArg('window', args.values.window) ?? contextWindowFor(model);
  const target = positiveIntArg('target', args.values.target);
  const threshold = thresholdArg(args.values.threshold) ?? DEFAULT_SETTINGS.compaction.autoThreshold;
  const { summarizer, source } = summarizerFor(args, model);
  const messages = readChatFile(file);
  const now = Date.now();
  let n = 0;
  const newId = () => `cli-${(++n).toString(36)}`;
  const history = historyFromChatMessages(messages, { model, sessionId: 'cli', createdAt: now });

  // CFPM memory (and the priority chain's digest): refresh once over the history, inject the block.
  let facts: MemoryFact[] = [];
  let candidates: MemoryCandidate[] = [];
  const notices: string[] = [];
  let memoryBlock: string | null = null;
  if (strategy === 'cfpm_memory_v1' || strategy === 'priority_chain') {
    const agentMessages: ChatMessage[] = history.map((m) => toChatMessage(m));
    const refreshed = refreshMemory({
      sessionId: 'cli',
      messages: agentMessages,
      facts: [],
      now,
      newId,
      reason: 'cli',
    });
    facts = refreshed.facts;
    candidates = refreshed.candidates;
    memoryBlock = buildMemoryBlock(facts);
    const notice = formatRuntimeNotice(refreshed, DEFAULT_SETTINGS.cfpm.runtimeVisibility);
    if (notice) notices.push(notice);
  }

  const before = buildView({ history, model, memoryBlock });
  const manual = args.flags.has('manual');
  const due = manual || shouldAutoCompact({ total: before.tokens, window }, threshold);
  const result = due
    ? await compact({
        history,
        strategy,
        model,
        window,
        target,
        trigger: manual ? 'manual' : 'auto',
        threshold,
        instructions: args.values.instructions ?? null,
        summarizer,
        memoryBlock,
        memoryFacts: facts,
        now: () => now,
        newId,
        sessionId: 'cli',
      })
    : null;
  const applied = result?.ok
    ? [toCompactionRecord(result, { sessionId: 'cli', createdAt: now, instructions: args.values.instructions })]
    : [];
  const fullHistory: StoredMessage[] = result?.ok ? [...history, ...result.inserted] : history;
  const after = buildView({ history: fullHistory, compactions: applied, model, memoryBlock });
  const hidden = new Set(result?.ok ? result.hiddenIds : []);
  const agentCount = orderAgentMessages(history, []).length;

  if (args.flags.has('json')) {
    io.out(
      JSON.stringify({
        ok: result?.ok ?? false,
        reason: result
          ? result.reason
          : `below_threshold (${Math.round((before.tokens / window) * 1000) / 10}% < ${threshold * 100}%)`,
        strategy,
        trigger: manual ? 'manual' : 'auto',
        model,
        window,
        target: result?.target ?? null,
        summarySource: source,
        tokensBefore: before.tokens,
        tokensAfter: after.tokens,
        view: after.messages,
        history: fullHistory.map((m) => ({
          id: m.id,
          seq: m.seq,
          kind: m.kind,
          visibility: hidden.has(m.id) ? { user: m.visibility.user, agent: false } : m.visibility,
          hidden: hidden.has(m.id),
          tokens: m.tokens,
          ...toChatMessage(m),
          ...(m.meta ? { meta: m.meta } : {}),
        })),
        // The stats in every case: a run that compacted nothing reports removed 0, 0%.
        stats: result?.stats ?? compactionStats(agentCount, agentCount, before.tokens, before.tokens),
        steps: result?.steps ?? [],
        summary: result?.summary ?? null,
        compaction: applied[0] ?? null,
        memory: { facts, candidates },
        notices,
      }),
    );
  } else {
    io.out(
      `${strategy}: ${before.tokens} → ${after.tokens} tokens (window ${window}, target ${result?.target ?? '-'})`,
    );
    if (!result)
      io.out(
        `not compacted: usage ${Math.round((before.tokens / window) * 100)}% is under the ${threshold} threshold (use --manual)`,
      );
    else if (!result.ok) io.out(`not compacted: ${result.reason}`);
    else
      io.out(
        `hid ${result.hiddenIds.length}, inserted ${result.inserted.length}; ${result.stats.removed} messages removed (${result.stats.reductionPercent}%), ${result.stats.tokensSaved} tokens saved`,
      );
    for (const s of result?.steps ?? [])
      io.out(`  ${s.name}: ${s.tokensBefore} → ${s.tokensAfter}${s.skipped ? ` (skipped: ${s.skipped})` : ''}`);
  }
  return 0;
}
