/**
 * Does the user's intent survive compaction, whatever the strategy? On each transcript and
 * strategy: one compaction at windows of tokens/2 and tokens/4 (task messages and standing
 * instructions kept verbatim, edited files named), and a replay that grows the session message by
 * message with auto compaction at 80 % and a fixed summarizer (as `--summary-text`), compacting
 * 5–20 times. Used by `pnpm bench -- --only context` and by the quality tests.
 */
import { STRATEGIES, type CompactionRecord, type StoredMessage, type Strategy } from '@threadline/protocol';
import {
  buildView,
  compact,
  editedFiles,
  historyFromChatMessages,
  intentRetention,
  MemoryTokenCache,
  pathRecall,
  recoveryTarget,
  toCompactionRecord,
  type TokenCache,
} from '../src/index';
import type { Transcript } from '../src/cli/transcripts';
import { textOf } from './common';

/** A summarizer that knows nothing (as `threadline-context compact --summary-text`). */
export const FIXED_SUMMARY =
  'The conversation so far was about the task above; work continues from the recent messages.';
const fixedSummarizer = async (): Promise<string> => FIXED_SUMMARY;

export interface IntentFigures {
  tasks: number;
  tasksKept: number;
  instructions: number;
  instructionsKept: number;
  files: number;
  filesNamed: number;
  /** Compactions applied (1 for a one-shot run, 0 when it failed). */
  compactions: number;
  lost: string[];
}

function measure(history: StoredMessage[], compactions: CompactionRecord[], model: string, cache: TokenCache) {
  const view = buildView({ history, compactions, model, tokenCache: cache });
  const text = textOf(view.messages);
  return { view, text };
}

function figures(original: StoredMessage[], text: string, files: string[], compactions: number): IntentFigures {
  const r = intentRetention(original, text);
  const named = pathRecall(text, files).named.length;
  return {
    tasks: r.tasks,
    tasksKept: r.tasksKept,
    instructions: r.instructions,
    instructionsKept: r.instructionsKept,
    files: files.length,
    filesNamed: named,
    compactions,
    lost: r.lost,
  };
}

export interface TranscriptInput {
  history: StoredMessage[];
  files: string[];
  tokens: number;
}

export function prepare(t: Transcript, model: string, cache: TokenCache = new MemoryTokenCache()): TranscriptInput {
  const history = historyFromChatMessages(t.messages, { model, sessionId: 't', tokenCache: cache });
  const view = buildView({ history, model, tokenCache: cache });
  return { history, files: editedFiles(t.messages), tokens: view.tokens };
}

/** One compaction (a recovery, the view being twice or four times the window) of the whole transcript. */
export async function oneShot(
  input: TranscriptInput,
  strategy: Strategy,
  window: number,
  model: string,
  cache: TokenCache = new MemoryTokenCache(),
): Promise<IntentFigures> {
  const r = await compact({
    history: input.history,
    strategy,
    model,
    window,
    target: recoveryTarget(window, 1),
    trigger: 'recovery',
    summarizer: fixedSummarizer,
    tokenCache: cache,
    now: () => 0,
  });
  const applied = r.ok ? [toCompactionRecord(r, { sessionId: 't', createdAt: 0 })] : [];
  const { text } = measure(r.ok ? [...input.history, ...r.inserted] : input.history, applied, model, cache);
  return figures(input.history, text, input.files, r.ok ? 1 : 0);
}

/**
 * The session grown message by message; before each new message the auto trigger (80 %) runs as
 * the app runs it (three failures in a row pause it). The window is chosen so the replay compacts
 * about ten times.
 */
export async function replay(
  input: TranscriptInput,
  strategy: Strategy,
  window: number,
  model: string,
  cache: TokenCache = new MemoryTokenCache(),
): Promise<IntentFigures> {
  let history: StoredMessage[] = [];
  const compactions: CompactionRecord[] = [];
  let failures = 0;
  let seq = 0;
  let n = 0;
  for (const m of input.history) {
    history.push({ ...m, seq: seq++ });
    if (failures >= 3) continue;
    const { view } = measure(history, compactions, model, cache);
    if (view.tokens < 0.8 * window) continue;
    const r = await compact({
      history,
      compactions,
      strategy,
      model,
      window,
      threshold: 0.8,
      trigger: 'auto',
      summarizer: fixedSummarizer,
      tokenCache: cache,
      now: () => n,
      newId: (() => {
        let i = 0;
        return () => `c${n}-${i++}`;
      })(),
    });
    if (!r.ok) {
      failures++;
      continue;
    }
    failures = 0;
    n++;
    compactions.push(toCompactionRecord(r, { sessionId: 't', createdAt: n }));
    history = [...history, ...r.inserted];
    seq = history.reduce((mx, x) => Math.max(mx, x.seq), -1) + 1;
  }
  const { text } = measure(history, compactions, model, cache);
  return figures(input.history, text, input.files, n);
}

export interface IntentRow {
  strategy: Strategy;
  half: IntentFigures;
  quarter: IntentFigures;
  replayed: IntentFigures;
  /** One compaction at the replay's window, to compare the replay with. */
  once: IntentFigures;
}

function add(a: IntentFigures, b: IntentFigures): IntentFigures {
  return {
    tasks: a.tasks + b.tasks,
    tasksKept: a.tasksKept + b.tasksKept,
    instructions: a.instructions + b.instructions,
    instructionsKept: a.instructionsKept + b.instructionsKept,
    files: a.files + b.files,
    filesNamed: a.filesNamed + b.filesNamed,
    compactions: a.compactions + b.compactions,
    lost: [...a.lost, ...b.lost],
  };
}

const ZERO: IntentFigures = {
  tasks: 0,
  tasksKept: 0,
  instructions: 0,
  instructionsKept: 0,
  files: 0,
  filesNamed: 0,
  compactions: 0,
  lost: [],
};

/** Replay window: about ten compactions from 80 % down to ~60 % each. */
export const replayWindow = (tokens: number): number => Math.ceil(tokens / 4);

/** Totals per strategy over the transcripts. */
export async function intentTotals(
  transcripts: readonly Transcript[],
  model: string,
  strategies: readonly Strategy[] = STRATEGIES,
  opts: { replay?: boolean } = {},
): Promise<{ totals: IntentRow[]; perTranscript: Array<{ name: string; rows: IntentRow[] }> }> {
  const totals = new Map<Strategy, IntentRow>();
  const perTranscript: Array<{ name: string; rows: IntentRow[] }> = [];
  for (const t of transcripts) {
    const cache = new MemoryTokenCache();
    const input = prepare(t, model, cache);
    const rows: IntentRow[] = [];
    for (const s of strategies) {
      const row: IntentRow = {
        strategy: s,
        half: await oneShot(input, s, Math.floor(input.tokens / 2), model, cache),
        quarter: await oneShot(input, s, Math.floor(input.tokens / 4), model, cache),
        replayed: opts.replay === false ? ZERO : await replay(input, s, replayWindow(input.tokens), model, cache),
        once: opts.replay === false ? ZERO : await oneShot(input, s, replayWindow(input.tokens), model, cache),
      };
      rows.push(row);
      const tot = totals.get(s) ?? { strategy: s, half: ZERO, quarter: ZERO, replayed: ZERO, once: ZERO };
      totals.set(s, {
        strategy: s,
        half: add(tot.half, row.half),
        quarter: add(tot.quarter, row.quarter),
        replayed: add(tot.replayed, row.replayed),
        once: add(tot.once, row.once),
      });
    }
    perTranscript.push({ name: t.name, rows });
  }
  return { totals: [...totals.values()], perTranscript };
}

export const pct = (kept: number, of: number): string => (of === 0 ? '-' : `${((kept / of) * 100).toFixed(1)}%`);
