// The first meter reading of the largest session in a fresh app (issue 41, a guarded figure): the
// largest transcript of fixtures/transcripts stored as a session of a gpt-4o provider (exact o200k
// counts), then opened by a fresh host process (meterHost.ts) that times createAppApi →
// messages.list → context.usage. Two stores: the counts stored as the app stores them at append
// (exact up to 16,000 characters, the larger messages counted later), and no stored counts (a
// session from before counts were stored: everything is counted or estimated at that first reading).
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { historyFromChatMessages, messageTextLength } from '@threadline/context';
import * as z from 'zod/mini';
import { ChatMessageSchema } from '@threadline/protocol';
import { openStore } from '@threadline/store';
import type { MeterHostConfig, MeterHostReport } from './meterHost';

const ROOT = resolve(import.meta.dirname, '../../..');
const HOST = join(import.meta.dirname, 'meterHost.ts');
/** As the runtime stores a message at append (turn/counting.ts, BIG_MESSAGE_CHARS). */
const COUNTED_AT_APPEND_CHARS = 16_000;

export interface MeterFigures {
  transcript: string;
  messages: number;
  /** Median over the runs, per store: wall ms, CPU ms, and the meter's total. */
  stored: { ms: number; cpuMs: number; total: number };
  uncounted: { ms: number; cpuMs: number; total: number };
  runs: number;
}

/** The largest file of fixtures/transcripts (`{ messages }`). */
export function largestTranscript(): string {
  const dir = resolve(ROOT, 'fixtures/transcripts');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(dir, f));
  return files.reduce((a, b) => (statSync(b).size > statSync(a).size ? b : a));
}

export function seed(file: string, transcript: string, storedCounts: boolean): string {
  const { messages } = z
    .object({ messages: z.array(ChatMessageSchema) })
    .parse(JSON.parse(readFileSync(transcript, 'utf8')));
  const history = historyFromChatMessages(messages, { model: 'gpt-4o', sessionId: 's' });
  const store = openStore({ file, env: {}, allowPlaintextKeys: true });
  try {
    store.providers.upsert({
      preset: 'custom',
      name: 'bench',
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'gpt-4o',
      contextWindow: 128_000,
      compactionModel: null,
      apiKey: 'bench-key',
    });
    const session = store.sessions.create('largest transcript');
    store.messages.append(
      session.id,
      history.map((m) => ({
        role: m.role,
        content: m.content,
        ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
        ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
        ...(m.name !== undefined ? { name: m.name } : {}),
        ...(m.fullOutput ? { fullOutput: m.fullOutput } : {}),
        tokens: storedCounts && messageTextLength(m) <= COUNTED_AT_APPEND_CHARS ? m.tokens : null,
      })),
    );
    return session.id;
  } finally {
    store.close();
  }
}

/** One fresh host process (`host`: this checkout's meterHost.ts, or another's to compare). */
export function runHost(cfg: MeterHostConfig, host = HOST): Promise<MeterHostReport> {
  return new Promise((resolvePromise, reject) => {
    const child = fork(host, [JSON.stringify(cfg)], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    child.stdout?.pipe(process.stderr);
    child.stderr?.pipe(process.stderr);
    let report: MeterHostReport | null = null;
    child.on('message', (m) => (report = m as MeterHostReport));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (report) resolvePromise(report);
      else reject(new Error(`meter host exited (${signal ?? code}) without a report`));
    });
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureMeter(opts: { quick?: boolean } = {}): Promise<MeterFigures> {
  const runs = opts.quick ? 3 : 5;
  const transcript = largestTranscript();
  const dir = mkdtempSync(join(tmpdir(), 'tl-meter-bench-'));
  try {
    const result = {} as Pick<MeterFigures, 'stored' | 'uncounted'>;
    let messages = 0;
    for (const kind of ['stored', 'uncounted'] as const) {
      const file = join(dir, `${kind}.db`);
      const sessionId = seed(file, transcript, kind === 'stored');
      const reports: MeterHostReport[] = [];
      for (let i = 0; i < runs; i++) {
        // A fresh data folder each run: nothing cached between two fresh apps but the store.
        const hostDir = join(dir, `${kind}${i}`);
        mkdirSync(hostDir);
        reports.push(await runHost({ file, sessionId, dir: hostDir }));
      }
      result[kind] = {
        ms: median(reports.map((r) => r.ms)),
        cpuMs: median(reports.map((r) => r.cpuMs)),
        total: reports[0]!.total,
      };
      const store = openStore({ file, env: {}, allowPlaintextKeys: true });
      messages = store.messages.list(sessionId, { fullOutput: false }).length;
      store.close();
    }
    return { transcript: transcript.split('/').at(-1)!, messages, runs, ...result };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printMeter(f: MeterFigures): void {
  console.log(`## First meter reading of the largest session in a fresh app (${f.transcript}, ${f.messages} messages)`);
  console.log(
    'import of the runtime → createAppApi → messages.list → context.usage in a fresh process, median of',
    f.runs,
    'runs',
  );
  for (const kind of ['stored', 'uncounted'] as const) {
    const x = f[kind];
    const label = kind === 'stored' ? 'counts stored as at append' : 'no stored counts';
    console.log(`  ${label}: ${x.ms.toFixed(0)} ms wall, ${x.cpuMs.toFixed(0)} ms CPU (meter total ${x.total})`);
  }
}
