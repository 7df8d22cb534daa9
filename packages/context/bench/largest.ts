import { existsSync } from 'node:fs';
import { STRATEGIES } from '@threadline/protocol';
import { loadTranscripts } from '../src/cli/transcripts';
import { compactFromScratch, fmt, out, textOf } from './common';
import { p50, table, time } from './stats';

/**
 * The largest transcript, cold, in this process: a fresh message cache each run (the BPE ranks
 * are loaded once per process, like the app's). Ingest (write-time
 * truncation + counting) and compaction, per strategy. As in the session part, the code itself is
 * warm (one untimed run per strategy first, as in a running app): on a loaded machine V8's
 * background compiler can otherwise take a second to finish, and the first strategy measured that.
 */
export async function largestTranscriptBench(dir: string, quick: boolean): Promise<void> {
  if (!existsSync(dir)) return;
  const all = loadTranscripts(dir);
  const size = (t: (typeof all)[number]) => textOf(t.messages).length;
  const largest = all.reduce((a, b) => (size(b) > size(a) ? b : a));
  const iterations = quick ? 3 : 11;
  const rows: Array<Array<string | number>> = [];
  for (const strategy of STRATEGIES) {
    let note = '';
    const cpu: number[] = [];
    const once = async (): Promise<string> => {
      const r = await compactFromScratch(largest.messages, strategy);
      return r.ok
        ? `${r.tokensBefore} → ${r.tokensAfter}${r.targetReached ? '' : ' (best effort)'}`
        : `failed: ${r.reason}`;
    };
    await once();
    const times = await time(iterations, async () => {
      const c0 = process.cpuUsage();
      note = await once();
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    });
    rows.push([strategy, fmt(p50(times)), fmt(p50(cpu)), '≤ 100 ms', note]);
  }
  out(
    `## Largest transcript, cold (${largest.name}: ${(size(largest) / 1e6).toFixed(2)} M chars, ${largest.messages.length} messages)`,
  );
  // CPU time beside wall time: on a shared machine the wall clock measures the neighbours too.
  out(table(['strategy', 'ingest + compact p50 (wall)', 'p50 (CPU)', 'target', 'tokens'], rows));
}
