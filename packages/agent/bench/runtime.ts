// Runtime bench (issue 14, "Figures"): what a step costs before the provider sees it, what the host
// holds with a long session open, what the database takes. The app runtime runs in a fresh child
// process (runtimeHost.ts) over a real store file; fake-llm answers over real HTTP in this process
// and stamps each request's arrival on the monotonic clock both processes share.
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeLlm, type FakeLlm } from '@threadline/fake-llm';
import { openStore, type NewMessage, type Store } from '@threadline/store';
import { dbKiBPer1000, text, turn } from '../../store/bench/mix';
import type { HostConfig, HostReport } from './runtimeHost';

const ROOT = resolve(import.meta.dirname, '../../..');
const HOST = join(import.meta.dirname, 'runtimeHost.ts');

export interface RuntimeFigures {
  /** p50 ms from chat.send to the request's arrival at the provider, per session size. */
  stepOverheadMs: { '10': number; '10000': number };
  /** Host RSS (MB, after a full GC) with the 10,000-message session open. */
  rssMb10k: number;
  /** Database size per 1,000 messages of the bench mix. */
  dbKiBPer1000: number;
}

export interface RuntimeDetails extends RuntimeFigures {
  sends: number;
  p95: { '10': number; '10000': number };
  heapMb10k: number;
}

/** Messages between two compactions of the long session, and what each keeps in view. */
const COMPACT_EVERY = 2000;
const KEEP_TAIL = 40;

/**
 * A session of `count` mix messages. Every COMPACT_EVERY messages a compaction folds everything the
 * agent sees but the last KEEP_TAIL (earlier summaries included) into a summary, as the engine's
 * fold does, recorded through the store's own compactions.apply.
 */
function seedSession(store: Store, count: number): string {
  const session = store.sessions.create(`${count} messages`);
  let inView: { id: string; seq: number }[] = [];
  let turnIndex = 0;
  let written = 0;
  while (written < count) {
    const chunk = Math.min(COMPACT_EVERY, count - written);
    for (let done = 0; done < chunk;) {
      const batch: NewMessage[] = [];
      while (batch.length < 1000 && done + batch.length < chunk) batch.push(...turn(turnIndex++));
      done += batch.length;
      for (const m of store.messages.append(session.id, batch)) inView.push({ id: m.id, seq: m.seq });
    }
    written += chunk;
    if (chunk < COMPACT_EVERY || inView.length <= KEEP_TAIL) continue;
    const fold = inView.slice(0, -KEEP_TAIL);
    const { inserted } = store.compactions.apply(
      session.id,
      {
        strategy: 'legacy_segmented',
        trigger: 'auto',
        steps: [{ name: 'fold', tokensBefore: fold.length * 210, tokensAfter: 1500, hidden: fold.length }],
        hiddenIds: fold.map((m) => m.id),
        tokensBefore: inView.length * 210,
        tokensAfter: KEEP_TAIL * 210 + 1500,
        summary: text(written, 3000),
        afterSeq: fold[fold.length - 1]!.seq,
      },
      [
        { role: 'user', kind: 'summary', content: `Summary of the earlier conversation:\n\n${text(written, 3000)}` },
        { role: 'user', kind: 'continuation', content: 'Continue from the summary above; the details are hidden.' },
      ],
    );
    inView = [...inserted.map((m) => ({ id: m.id, seq: m.seq })), ...inView.slice(-KEEP_TAIL)];
  }
  return session.id;
}

function seedFile(file: string, count: number, llm: FakeLlm): string {
  const store = openStore({ file, env: {}, allowPlaintextKeys: true });
  try {
    store.providers.upsert({
      preset: 'custom',
      name: 'fake',
      baseUrl: llm.url,
      model: 'fake-model',
      contextWindow: 128_000,
      compactionModel: null,
      apiKey: 'bench-key',
    });
    return seedSession(store, count);
  } finally {
    store.close();
  }
}

function runHost(cfg: HostConfig): Promise<HostReport> {
  return new Promise((resolvePromise, reject) => {
    const child = fork(HOST, [JSON.stringify(cfg)], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx', '--expose-gc'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    // Progress and errors of the host go to stderr: stdout may be the bench's JSON.
    child.stdout?.pipe(process.stderr);
    child.stderr?.pipe(process.stderr);
    let report: HostReport | null = null;
    const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000);
    child.on('message', (m) => (report = m as HostReport));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (report) resolvePromise(report);
      else reject(new Error(`runtime host exited (${signal ?? code}) without a report`));
    });
  });
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Each send's delay to the first chat request that arrived after it. */
function overheads(sendTimes: number[], llm: FakeLlm): number[] {
  const arrivals = llm.chatRequests().map((r) => r.receivedAtHrMs);
  return sendTimes.map((t0) => {
    const at = arrivals.find((a) => a >= t0);
    if (at === undefined) throw new Error('a send reached no provider request');
    return at - t0;
  });
}

export async function measureRuntime(opts: { quick?: boolean } = {}): Promise<RuntimeDetails> {
  const sends = opts.quick ? 5 : 15;
  const dir = mkdtempSync(join(tmpdir(), 'tl-runtime-bench-'));
  const llm = await startFakeLlm({ defaultReply: { content: 'Done: all tests pass.' } });
  try {
    const per: Record<'10' | '10000', { overheads: number[]; report: HostReport }> = {} as never;
    for (const size of ['10', '10000'] as const) {
      const file = join(dir, `s${size}.db`);
      console.error(`runtime bench: seeding a ${size}-message session…`);
      const sessionId = seedFile(file, Number(size), llm);
      const hostDir = join(dir, `host${size}`);
      mkdirSync(hostDir);
      llm.reset();
      llm.setRules([], { content: 'Done: all tests pass.' });
      console.error(`runtime bench: ${sends} sends in a fresh host process…`);
      const report = await runHost({ file, sessionId, sends, dir: hostDir });
      per[size] = { overheads: overheads(report.sendTimes, llm), report };
    }
    console.error('runtime bench: database size of the mix…');
    const big = per['10000'].report;
    return {
      stepOverheadMs: { '10': pct(per['10'].overheads, 50), '10000': pct(per['10000'].overheads, 50) },
      rssMb10k: big.rssMb,
      dbKiBPer1000: dbKiBPer1000(join(dir, 'size.db')),
      sends,
      p95: { '10': pct(per['10'].overheads, 95), '10000': pct(per['10000'].overheads, 95) },
      heapMb10k: big.heapMb,
    };
  } finally {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const round = (n: number, d: number): number => Math.round(n * 10 ** d) / 10 ** d;

/** The JSON the issue asks for: exactly the three figures. */
export function runtimeJson(r: RuntimeFigures): string {
  return JSON.stringify({
    stepOverheadMs: { '10': round(r.stepOverheadMs['10'], 2), '10000': round(r.stepOverheadMs['10000'], 2) },
    rssMb10k: round(r.rssMb10k, 1),
    dbKiBPer1000: round(r.dbKiBPer1000, 1),
  });
}

/** Prints the runtime figures as a table; called by the root `pnpm bench`. */
export function printRuntime(r: RuntimeDetails): void {
  const f = (n: number): string => n.toFixed(1);
  console.log('runtime (createAppApi in a fresh host process, fake-llm over HTTP, real store file)');
  for (const size of ['10', '10000'] as const)
    console.log(
      `  chat.send → first request byte at the provider, ${size}-message session: p50 ${f(r.stepOverheadMs[size])} ms, p95 ${f(r.p95[size])} ms over ${r.sends} sends`,
    );
  console.log(
    `  host RSS with the 10,000-message session open (after GC): ${f(r.rssMb10k)} MB (JS heap ${f(r.heapMb10k)} MB)`,
  );
  console.log(`  database size per 1,000 messages of the mix: ${r.dbKiBPer1000.toFixed(0)} KiB`);
}
