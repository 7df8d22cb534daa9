// Issue 41's guarded figures: what users feel of token counting, before the hand-written
// tokenizer was replaced by a library and now, side by side; each must stay within 1.5× of before.
// "Before" is recorded, not measured here: train34a (commit fa2575e, the prebuilt o200k vocabulary
// and its WebAssembly counter) on the 2-core machine shared by eight sessions (load average ~8),
// 28 Nov 2026. The meter figures are medians of five fresh processes each, run interleaved with
// the new code's (the same store files, same machine, same minutes); the stall is the median of
// six runs of apps/server/bench/stall.ts interleaved with the new code's (88, 165, 180, 200, 323
// and 497 ms; the new code's six: 203, 205, 235, 291, 305, 360 ms, median 263). One run swings by
// 2× on this machine: compare medians of several, and on another machine the ratio, not the ms.
import type { MeterFigures } from '../packages/agent/bench/meter';
import type { StallFigures } from '../apps/server/bench/stall';

export const BEFORE = {
  meter: {
    stored: { ms: 4581, cpuMs: 1438 },
    uncounted: { ms: 3749, cpuMs: 1338 },
  },
  stallMs: 190,
} as const;

const LIMIT = 1.5;

export function printGuarded(now: { meter: MeterFigures; stall: StallFigures }): void {
  const rows: Array<[string, number, number]> = [
    ['first meter reading, counts stored (CPU ms)', BEFORE.meter.stored.cpuMs, now.meter.stored.cpuMs],
    ['first meter reading, counts stored (wall ms)', BEFORE.meter.stored.ms, now.meter.stored.ms],
    ['first meter reading, no stored counts (CPU ms)', BEFORE.meter.uncounted.cpuMs, now.meter.uncounted.cpuMs],
    ['first meter reading, no stored counts (wall ms)', BEFORE.meter.uncounted.ms, now.meter.uncounted.ms],
    ['longest request-loop stall, 1 MB paste and read (ms)', BEFORE.stallMs, now.stall.longestMs],
  ];
  console.log(`| figure | before (recorded) | now | now / before (limit ${LIMIT}×) |`);
  console.log('| --- | --- | --- | --- |');
  for (const [name, before, after] of rows) {
    const ratio = after / before;
    const mark = ratio <= LIMIT ? '' : ' over';
    console.log(`| ${name} | ${before.toFixed(0)} | ${after.toFixed(0)} | ${ratio.toFixed(2)}×${mark} |`);
  }
}
