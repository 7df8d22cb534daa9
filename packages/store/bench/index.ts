// Store benchmarks (SPEC §8): append a turn, reopen a 10,000-message session, bytes per 1,000
// messages, RSS with it open. Run through the root `pnpm bench` or `tsx packages/store/bench/cli.ts`.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/index';
import type { NewMessage } from '../src/index';

export interface StoreBenchResult {
  appendTurnMs: { p50: number; p95: number; turns: number; messagesPerTurn: number };
  openSessionMs: { p50: number; messages: number; runs: number };
  listSessionMs: { p50: number };
  bytesPer1000Messages: number;
  rssMbWithSessionOpen: number;
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Deterministic text of realistic length (prose-like, some CJK), so sizes are reproducible. */
function text(i: number, chars: number): string {
  const words = ['the', 'context', 'engine', 'keeps', 'thread', 'session', 'file', 'src/index.ts', 'pnpm', 'test', '上下文', '压缩', 'ok', 'result'];
  let out = '';
  for (let k = 0; out.length < chars; k++) out += words[(i * 31 + k * 7) % words.length] + ' ';
  return out.slice(0, chars);
}

/** One agent turn: user asks, assistant calls a tool, the tool answers (truncated + full), assistant replies. */
function turn(i: number): NewMessage[] {
  const callId = `call_${i}`;
  const full = text(i, 6000);
  return [
    { role: 'user', content: text(i, 200), tokens: 50 },
    {
      role: 'assistant',
      content: text(i + 1, 300),
      tool_calls: [{ id: callId, type: 'function', function: { name: 'shell', arguments: JSON.stringify({ command: `ls -la src/${i}` }) } }],
      tokens: 90,
    },
    { role: 'tool', content: full.slice(0, 2000), tool_call_id: callId, name: 'shell', fullOutput: full, tokens: 500, meta: { durationMs: 40, status: 'ok' } },
    { role: 'assistant', content: text(i + 2, 800), tokens: 200 },
  ];
}

export function measureStore(opts: { quick?: boolean } = {}): StoreBenchResult {
  const quick = opts.quick ?? false;
  const dir = mkdtempSync(join(tmpdir(), 'tl-store-bench-'));
  try {
    const file = join(dir, 'bench.db');
    let store = openStore({ file, env: {} });

    // 1. Append a turn (one transaction, fsync'd: synchronous=FULL).
    const appendSession = store.sessions.create('append');
    const turns = quick ? 60 : 300;
    const appendTimes: number[] = [];
    for (let i = 0; i < turns; i++) {
      const msgs = turn(i);
      const t = performance.now();
      store.messages.append(appendSession.id, msgs);
      appendTimes.push(performance.now() - t);
    }
    store.sessions.delete(appendSession.id);

    // 2. A 10,000-message session, written in big batches.
    const big = store.sessions.create('ten thousand');
    const target = 10_000;
    for (let i = 0; i < target / 4; ) {
      const batch: NewMessage[] = [];
      for (let k = 0; k < 250 && i < target / 4; k++, i++) batch.push(...turn(i));
      store.messages.append(big.id, batch);
    }
    store.close();
    const bytesPer1000Messages = Math.round(statSync(file).size / (target / 1000));

    // 3. Reopen the file and load the whole session, as the app does when the user opens it.
    const runs = quick ? 3 : 10;
    const openTimes: number[] = [];
    const listTimes: number[] = [];
    let rss = 0;
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      store = openStore({ file, env: {} });
      const t1 = performance.now();
      const msgs = store.messages.list(big.id);
      const t2 = performance.now();
      if (msgs.length !== target) throw new Error(`expected ${target} messages, got ${msgs.length}`);
      openTimes.push(t2 - t0);
      listTimes.push(t2 - t1);
      rss = Math.max(rss, process.memoryUsage().rss);
      if (r < runs - 1) store.close();
    }
    store.close();

    return {
      appendTurnMs: { p50: pct(appendTimes, 50), p95: pct(appendTimes, 95), turns, messagesPerTurn: 4 },
      openSessionMs: { p50: pct(openTimes, 50), messages: target, runs },
      listSessionMs: { p50: pct(listTimes, 50) },
      bytesPer1000Messages,
      rssMbWithSessionOpen: rss / 1024 / 1024,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the store figures; called by the root `pnpm bench`. */
export async function runStoreBench(opts: { quick?: boolean } = {}): Promise<void> {
  const r = measureStore(opts);
  const f = (n: number): string => n.toFixed(2);
  console.log('store (better-sqlite3, WAL, synchronous=FULL)');
  console.log(`  append a turn (${r.appendTurnMs.messagesPerTurn} messages, 1 transaction): p50 ${f(r.appendTurnMs.p50)} ms, p95 ${f(r.appendTurnMs.p95)} ms over ${r.appendTurnMs.turns} turns`);
  console.log(`  open a ${r.openSessionMs.messages}-message session (open file + load history): p50 ${f(r.openSessionMs.p50)} ms (load history alone p50 ${f(r.listSessionMs.p50)} ms, ${r.openSessionMs.runs} runs)`);
  console.log(`  database size per 1,000 messages: ${(r.bytesPer1000Messages / 1024).toFixed(0)} KiB (turns of user/assistant/tool with a 6 KB full output)`);
  console.log(`  host RSS with the session open: ${r.rssMbWithSessionOpen.toFixed(0)} MB`);
}
