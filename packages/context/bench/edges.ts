/**
 * The engine at its edges (issue 36): sessions shaped like the ones that broke it, replayed
 * message by message with the auto trigger as the app runs it, for every strategy. Figures:
 * compactions applied, attempts that failed, compactions that left the view over the window,
 * whether the task (its first sentences) and the standing instruction stayed in the view, and
 * pair-integrity violations of every view (a strict provider refuses them). Used by
 * `pnpm bench -- --only context` and by the edge tests.
 */
import {
  STRATEGIES,
  type ChatMessage,
  type CompactionRecord,
  type StoredMessage,
  type Strategy,
} from '@threadline/protocol';
import {
  autoCompactionHeld,
  buildView,
  compact,
  historyFromChatMessages,
  MemoryTokenCache,
  pairViolations,
  taskHead,
  toCompactionRecord,
  type LastAutoCompaction,
  type Summarizer,
  type TokenCache,
} from '../src/index';
import { textOf } from './common';

export interface EdgeSession {
  name: string;
  messages: ChatMessage[];
  window: number;
  /** The user's task sentence and a standing instruction that must stay in the view. */
  task: string;
  rule: string;
}

/** A deterministic text of `chars` characters that reads like a pasted report (words, some figures). */
export function dataText(chars: number, seed = 1): string {
  const words = [
    'account',
    'balance',
    'invoice',
    'payment',
    'customer',
    'transfer',
    'quarter',
    'report',
    'amount',
    'entry',
    'the',
    'of',
    'and',
    'for',
    'was',
    'with',
    'from',
    'after',
    'before',
    'ledger',
  ];
  let x = seed;
  const parts: string[] = [];
  let n = 0;
  while (n < chars) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const w = x % 13 === 0 ? `${x % 9973}.${x % 100}` : words[x % words.length]!;
    const sep = x % 17 === 0 ? '.\n' : ' ';
    parts.push(w + sep);
    n += w.length + sep.length;
  }
  return parts.join('').slice(0, chars);
}

/** `turns` tool round trips (shell calls with outputs of `outputChars`), a final answer each few. */
function toolTurns(turns: number, outputChars: number, first = 0): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = first; i < first + turns; i++) {
    const id = `call_${i}`;
    out.push({
      role: 'assistant',
      content: `Checking part ${i}.`,
      tool_calls: [{ id, type: 'function', function: { name: 'shell', arguments: `{"command":"cat part_${i}.csv"}` } }],
    });
    out.push({ role: 'tool', tool_call_id: id, content: `part ${i}\n${dataText(outputChars, i + 7)}` });
    if (i % 8 === 7) {
      out.push({ role: 'assistant', content: `Parts up to ${i} are checked.` });
      out.push({ role: 'user', content: `Go on with the parts after ${i}.` });
    }
  }
  return out;
}

const TASK = 'Task: reconcile the quarterly ledger below against the bank export and list every mismatch.';
const RULE = 'Always report amounts with two decimals and never round them.';

/** The shapes of issue 36, each with the window it was seen at. */
export function edgeSessions(): EdgeSession[] {
  return [
    {
      // A 79,708-character paste as the first message (task + data), then a long tool-heavy session.
      name: 'first message 79,708 chars, 335 messages, 20K window',
      task: TASK,
      rule: RULE,
      window: 20_000,
      messages: (
        [
          { role: 'system', content: 'You are a careful data agent.' },
          { role: 'user', content: `${TASK} ${RULE}\n\n${dataText(79_708 - TASK.length - RULE.length - 3)}` },
          ...toolTurns(148, 1_800),
        ] satisfies ChatMessage[]
      ).slice(0, 335),
    },
    {
      // Task + rule + a 36 KB spec: the first message alone is over the 8,000 window.
      name: 'task + rule + 36 KB spec, 8K window',
      task: 'Task: implement the importer the spec below describes.',
      rule: 'Never change the public function names.',
      window: 8_000,
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        {
          role: 'user',
          content: `Task: implement the importer the spec below describes. Never change the public function names.\n\n${dataText(36_000, 3)}`,
        },
        ...toolTurns(30, 1_200),
      ],
    },
    {
      // Few messages whose tool outputs alone are over a small window.
      name: 'few messages over a 4K window',
      task: 'Task: find why the nightly import fails.',
      rule: 'Do not restart the database.',
      window: 4_000,
      messages: [
        { role: 'system', content: 'You are an ops agent.' },
        { role: 'user', content: 'Task: find why the nightly import fails. Do not restart the database.' },
        ...toolTurns(3, 9_000),
      ],
    },
  ];
}

export interface EdgeFigures {
  compactions: number;
  /** Automatic runs that failed (not applied) for any reason but "below the threshold". */
  failed: number;
  /** Applied compactions whose view was still over the window. */
  overWindow: number;
  /** The task's first sentences and the standing instruction, in the final view. */
  taskKept: boolean;
  ruleKept: boolean;
  /** Views (after each compaction and at the end) with a call apart from its results. */
  pairViolations: number;
  /** The final view over the window, in percent of it. */
  finalPercent: number;
  reasons: string[];
}

const summarizer: Summarizer = async () =>
  'The conversation so far was about the task above; work continues from the recent messages.';

/**
 * The session grown message by message; before each new message the auto trigger (80 %) runs as
 * the app runs it, held after a compaction that freed too little. A failed attempt does not pause
 * the replay (the app pauses after 3 in a row): every call where the trigger fires is counted.
 */
export async function replayEdge(
  session: EdgeSession,
  strategy: Strategy,
  model: string,
  cache: TokenCache = new MemoryTokenCache(),
  /** Hold the trigger after a compaction that freed too little (the app does; off to measure without). */
  hold = true,
): Promise<EdgeFigures> {
  const all = historyFromChatMessages(session.messages, { model, sessionId: 'edge', tokenCache: cache });
  let history: StoredMessage[] = [];
  const compactions: CompactionRecord[] = [];
  const fig: EdgeFigures = {
    compactions: 0,
    failed: 0,
    overWindow: 0,
    taskKept: false,
    ruleKept: false,
    pairViolations: 0,
    finalPercent: 0,
    reasons: [],
  };
  let last: LastAutoCompaction | null = null;
  let seq = 0;
  const view = () => buildView({ history, compactions, model, tokenCache: cache });
  const violated = (v: ReturnType<typeof view>): boolean => {
    const p = pairViolations(v.messages);
    return p.unansweredCalls.length + p.orphanResults.length > 0;
  };
  for (const m of all) {
    history.push({ ...m, seq: seq++ });
    // A user message or a tool result is where the app calls the model next.
    if (m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0) continue;
    const v = view();
    if (v.tokens < 0.8 * session.window || (hold && autoCompactionHeld(last, v.tokens, session.window))) continue;
    const n = fig.compactions;
    const r = await compact({
      history,
      compactions,
      strategy,
      model,
      window: session.window,
      threshold: 0.8,
      trigger: 'auto',
      summarizer,
      tokenCache: cache,
      now: () => n,
      newId: (() => {
        let i = 0;
        return () => `c${n}-${i++}`;
      })(),
    });
    if (!r.ok) {
      if (r.reason !== 'below_threshold') {
        fig.failed++;
        if (!fig.reasons.includes(r.reason ?? '')) fig.reasons.push(r.reason ?? '');
      }
      continue;
    }
    fig.compactions++;
    compactions.push(toCompactionRecord(r, { sessionId: 'edge', createdAt: n }));
    history = [...history, ...r.inserted];
    seq = history.reduce((mx, x) => Math.max(mx, x.seq), -1) + 1;
    const after = view();
    last = { tokensBefore: r.tokensBefore, tokensAfter: after.tokens };
    if (after.tokens > session.window) fig.overWindow++;
    if (violated(after)) fig.pairViolations++;
  }
  const end = view();
  if (violated(end)) fig.pairViolations++;
  const text = textOf(end.messages);
  const task = all.find((m) => m.role === 'user')?.content ?? '';
  fig.taskKept = text.includes(taskHead(task)) && text.includes(session.task);
  fig.ruleKept = text.includes(session.rule);
  fig.finalPercent = Math.round((end.tokens / session.window) * 100);
  return fig;
}

/** Every edge session under every strategy. */
export async function edgeTotals(
  model: string,
  strategies: readonly Strategy[] = STRATEGIES,
): Promise<Array<{ session: string; strategy: Strategy; figures: EdgeFigures }>> {
  const rows: Array<{ session: string; strategy: Strategy; figures: EdgeFigures }> = [];
  for (const s of edgeSessions()) {
    const cache = new MemoryTokenCache();
    for (const strategy of strategies)
      rows.push({ session: s.name, strategy, figures: await replayEdge(s, strategy, model, cache) });
  }
  return rows;
}
