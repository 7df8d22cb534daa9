// A long tool-heavy session with a small window, through the real runtime (createAppApi over a
// real SQLite file) against fake-llm in strict mode (it refuses, with the provider's own 400, every
// message shape the strictest OpenAI-compatible provider refuses) and with the same window (it
// refuses a prompt over it). Turns make several tool calls in a row, so auto compaction fires
// between tool calls. Used by `strictSession.test.ts` and `pnpm bench -- --only strict`;
// deterministic (no clock is read).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeLlm, type ChatRequestView, type FakeReply } from '@threadline/fake-llm';
import { STRATEGIES, type AppEvent, type Strategy } from '@threadline/protocol';
import { openStore } from '@threadline/store';
import { createAppApi } from '../src/index';

export interface StrictSessionOptions {
  strategy: Strategy;
  /** Turns of the user (default 6); each makes `calls` tool calls before it answers. */
  turns?: number;
  calls?: number;
  /** The window of the profile and of the provider (default 6,000). */
  window?: number;
}

export interface StrictSessionFigures {
  strategy: Strategy;
  window: number;
  requests: number;
  summaryRequests: number;
  /** Requests the strict provider refused for their shape (must be 0). */
  rejected: number;
  rejections: string[];
  /** Requests refused as over the window (recovered from by compacting). */
  overWindowRequests: number;
  compactions: number;
  /** Compactions started between two tool calls of one turn (the last request before it ended with a tool result). */
  betweenToolCalls: number;
  /** Compactions that failed (compaction.failed, not cancelled), and their reasons. */
  failedCompactions: number;
  failures: string[];
  /** Applied compactions whose view was still over the window. */
  overWindowCompactions: number;
  /** Every answered turn request carried the task's first sentence and the standing instruction. */
  taskKept: boolean;
}

export const TASK = 'Task: audit the log files in this folder and report every error line with its file.';
export const RULE = 'Never delete or change a log file.';

const lastIsTool = (req: ChatRequestView): boolean => req.messages.at(-1)?.role === 'tool';

/** `calls` shell calls in a row, each printing a sizeable file, then a short answer. */
function model(calls: number): (req: ChatRequestView) => FakeReply {
  let made = 0;
  let turn = 0;
  return (req) => {
    if (!lastIsTool(req)) {
      turn++;
      made = 0;
    }
    if (made >= calls) return { content: `Turn ${turn}: checked ${calls} files, no error lines so far.` };
    made++;
    return {
      toolCalls: [{ name: 'shell', arguments: { command: `cat logs/part_${(turn * calls + made) % 12}.log` } }],
    };
  };
}

export async function runStrictSession(opts: StrictSessionOptions): Promise<StrictSessionFigures> {
  const turns = opts.turns ?? 6;
  const calls = opts.calls ?? 6;
  const window = opts.window ?? 6_000;
  const dir = mkdtempSync(path.join(tmpdir(), 'tl-strict-'));
  const work = path.join(dir, 'work');
  mkdirSync(path.join(work, 'logs'), { recursive: true });
  for (let i = 0; i < 12; i++)
    writeFileSync(
      path.join(work, 'logs', `part_${i}.log`),
      Array.from(
        { length: 60 },
        (_, k) => `2024-05-0${(k % 9) + 1} worker ${i} processed batch ${k} in ${k * 7} ms`,
      ).join('\n'),
    );
  const llm = await startFakeLlm({ defaultReply: model(calls), contextWindow: window, strict: true });
  const store = openStore({ file: path.join(dir, 'threadline.db'), allowPlaintextKeys: true, env: {} });
  let compactions = 0;
  let betweenToolCalls = 0;
  const failures: string[] = [];
  const overWindow: number[] = [];
  const api = createAppApi({
    store,
    dataDir: path.join(dir, 'data'),
    homeDir: path.join(dir, 'home'),
    cwd: work,
    loginShell: false,
    emit: (e: AppEvent) => {
      // The last message the model reads a tool result: the compaction runs between two tool calls.
      if (
        e.type === 'compaction.started' &&
        store.messages
          .list(e.sessionId)
          .filter((m) => m.visibility.agent)
          .at(-1)?.role === 'tool'
      )
        betweenToolCalls++;
      if (e.type === 'compaction.finished') {
        compactions++;
        if (e.compaction.tokensAfter > window) overWindow.push(e.compaction.tokensAfter);
      }
      if (e.type === 'compaction.failed' && !e.cancelled) failures.push(e.reason);
    },
  });
  try {
    store.providers.upsert({
      preset: 'custom',
      name: 'fake',
      baseUrl: llm.url,
      model: 'fake-model',
      contextWindow: window,
      compactionModel: null,
      apiKey: 'bench-key',
    });
    store.settings.set({ approvalPolicy: 'auto', compaction: { strategy: opts.strategy } });
    const session = await api['sessions.create']({ title: 'strict', workingFolder: work });
    for (let t = 1; t <= turns; t++) {
      const text = t === 1 ? `${TASK} ${RULE}` : `Go on with the next ${calls} files (turn ${t}).`;
      await api['chat.send']({ sessionId: session.id, text });
      await api.idle(session.id);
    }
    const all = llm.chatRequests();
    const answered = all.filter((r) => r.status === 200 && !r.isSummaryRequest);
    const taskKept = answered.every((r) => {
      const body = JSON.stringify(r.body);
      return body.includes(TASK) && body.includes(RULE);
    });
    return {
      strategy: opts.strategy,
      window,
      requests: all.length,
      summaryRequests: all.filter((r) => r.isSummaryRequest).length,
      rejected: llm.rejectedRequests().length,
      rejections: llm.rejectedRequests().map((r) => r.rejected ?? ''),
      overWindowRequests: all.filter((r) => r.status === 400 && r.rejected === undefined).length,
      compactions,
      betweenToolCalls,
      failedCompactions: failures.length,
      failures,
      overWindowCompactions: overWindow.length,
      taskKept,
    };
  } finally {
    await api.dispose();
    await llm.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `pnpm bench -- --only strict`: the figures of each strategy as a table. */
export async function runStrictBench(): Promise<void> {
  const rows: StrictSessionFigures[] = [];
  for (const strategy of STRATEGIES) rows.push(await runStrictSession({ strategy }));
  const head = [
    'strategy',
    'requests',
    'rejected (strict)',
    'over window (400)',
    'compactions',
    'between tool calls',
    'failed compactions',
    'over window after',
    'task kept',
  ];
  console.log(`| ${head.join(' | ')} |`);
  console.log(`| ${head.map(() => '---').join(' | ')} |`);
  for (const r of rows)
    console.log(
      `| ${[r.strategy, r.requests, r.rejected, r.overWindowRequests, r.compactions, r.betweenToolCalls, r.failedCompactions, r.overWindowCompactions, r.taskKept ? 'yes' : 'no'].join(' | ')} |`,
    );
  for (const r of rows) for (const why of [...r.rejections, ...r.failures]) console.log(`  ${r.strategy}: ${why}`);
}
