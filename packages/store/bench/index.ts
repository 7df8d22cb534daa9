// Store benchmarks: append a turn, reopen a 10,000-message session, bytes per 1,000
// messages, RSS with it open. Run through the root `pnpm bench` or `tsx packages/store/bench/cli.ts`.
// Each figure is wall time and this process's CPU time: on a shared, loaded machine the wall time
// mostly measures the neighbours, the CPU time measures us.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openStore } from '../src/index';
import type { NewMessage } from '../src/index';
import { turn } from './mix';

export interface Timing {
  /** p50 of wall-clock ms */
  p50: number;
  p95: number;
  /** p50 of CPU ms (user + system) */
  cpuP50: number;
}

export interface StoreBenchResult {
  appendTurn: Timing & { turns: number; messagesPerTurn: number };
  /** openStore + list the whole 10,000-message history (with full outputs). */
  openSession: Timing & { messages: number; runs: number };
  /** The runtime's per-turn read: the history without full tool outputs. */
  listLight: Timing;
  bytesPer1000Messages: number;
  /** After a full GC, with the store open and the 10,000 messages (with full outputs) loaded. */
  rssMbWithSessionOpen: number;
  heapMbWithSessionOpen: number;
}

/** A full GC without --expose-gc, so the RSS figure is not the bench's own garbage. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

class Samples {
  private wall: number[] = [];
  private cpu: number[] = [];
  measure<T>(fn: () => T): T {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const out = fn();
    this.wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    this.cpu.push((c.user + c.system) / 1000);
    return out;
  }
  timing(): Timing {
    return { p50: pct(this.wall, 50), p95: pct(this.wall, 95), cpuP50: pct(this.cpu, 50) };
  }
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export function measureStore(opts: { quick?: boolean } = {}): StoreBenchResult {
  const quick = opts.quick ?? false;
  const dir = mkdtempSync(join(tmpdir(), 'tl-store-bench-'));
  try {
    const file = join(dir, 'bench.db');
    let store = openStore({ file, env: {} });

    // 1. Append a turn (one transaction, fsync'd: synchronous=FULL).
    const appendSession = store.sessions.create('append');
    const turns = quick ? 60 : 300;
    const append = new Samples();
    for (let i = 0; i < turns; i++) {
      const msgs = turn(i);
      append.measure(() => store.messages.append(appendSession.id, msgs));
    }
    store.sessions.delete(appendSession.id);

    // 2. A 10,000-message session, written in big batches.
    const big = store.sessions.create('ten thousand');
    const target = 10_000;
    for (let i = 0; i < target / 4;) {
      const batch: NewMessage[] = [];
      for (let k = 0; k < 250 && i < target / 4; k++, i++) batch.push(...turn(i));
      store.messages.append(big.id, batch);
    }
    store.close();
    const bytesPer1000Messages = Math.round(statSync(file).size / (target / 1000));

    // 3. Reopen the file and load the whole session, as the app does when the user opens it.
    const runs = quick ? 3 : 10;
    const open = new Samples();
    const light = new Samples();
    for (let r = 0; r < runs; r++) {
      const msgs = open.measure(() => {
        store = openStore({ file, env: {} });
        return store.messages.list(big.id);
      });
      if (msgs.length !== target) throw new Error(`expected ${target} messages, got ${msgs.length}`);
      light.measure(() => store.messages.list(big.id, { fullOutput: false }));
      store.close();
    }

    // 4. Memory with the session open, as the host holds it.
    collectGarbage();
    store = openStore({ file, env: {} });
    const held = store.messages.list(big.id);
    collectGarbage();
    const mem = process.memoryUsage();
    if (held.length !== target) throw new Error('session not loaded');
    store.close();

    return {
      appendTurn: { ...append.timing(), turns, messagesPerTurn: 4 },
      openSession: { ...open.timing(), messages: target, runs },
      listLight: light.timing(),
      bytesPer1000Messages,
      rssMbWithSessionOpen: mem.rss / 1024 / 1024,
      heapMbWithSessionOpen: mem.heapUsed / 1024 / 1024,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the store figures; called by the root `pnpm bench`. */
export async function runStoreBench(opts: { quick?: boolean } = {}): Promise<void> {
  const r = measureStore(opts);
  const f = (n: number): string => n.toFixed(1);
  const t = (x: Timing): string => `p50 ${f(x.p50)} ms, p95 ${f(x.p95)} ms (CPU p50 ${f(x.cpuP50)} ms)`;
  console.log('store (better-sqlite3, WAL, synchronous=FULL)');
  console.log(
    `  append a turn (${r.appendTurn.messagesPerTurn} messages, 1 transaction, fsync): ${t(r.appendTurn)} over ${r.appendTurn.turns} turns`,
  );
  console.log(
    `  open a ${r.openSession.messages}-message session (open file + load history with full outputs): ${t(r.openSession)} over ${r.openSession.runs} runs`,
  );
  console.log(`  load that history without full tool outputs (the per-turn view read): ${t(r.listLight)}`);
  console.log(
    `  database size per 1,000 messages: ${(r.bytesPer1000Messages / 1024).toFixed(0)} KiB (user/assistant/tool turns, 6 KB full tool output each)`,
  );
  console.log(
    `  host RSS with the session open (after GC): ${r.rssMbWithSessionOpen.toFixed(0)} MB (JS heap ${r.heapMbWithSessionOpen.toFixed(0)} MB)`,
  );
}
