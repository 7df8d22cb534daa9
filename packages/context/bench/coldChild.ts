// One fresh process of the cold-compaction bench (cold.ts), run through tsx by a small entry that
// first notes the time (globalThis.__tlColdStart), then imports this file and calls main: reads one
// transcript and compacts it (default strategy, extractive summary). What it times is what
// ProbeAgent's child times: from the entry's first line, loading the compactor's code, reading and
// parsing the file, loading the tokenizer's vocabulary, counting every message and compacting.
// Prints {"ms": …, "cpu": …} on stdout (wall and CPU milliseconds of that work, JIT threads
// included) and the whole process's CPU so far.
import { readChatFile } from '../src/cli/transcripts';
import type { Strategy } from '@threadline/protocol';
import { compactFromScratch } from './common';

interface ColdStart {
  t0: number;
  c0: NodeJS.CpuUsage;
}

/** `<file> [strategy]`: compacts the file from scratch and prints the figures. */
export async function main(argv: string[]): Promise<void> {
  const start = (globalThis as { __tlColdStart?: ColdStart }).__tlColdStart ?? {
    t0: performance.now(),
    c0: process.cpuUsage(),
  };
  const loaded = performance.now();
  const file = argv[0]!;
  const strategy = (argv[1] ?? 'legacy_segmented') as Strategy;
  const messages = readChatFile(file);
  const read = performance.now();
  let counted = 0;
  const r = await compactFromScratch(messages, strategy, () => (counted = performance.now()));
  const end = performance.now();
  const ms = end - start.t0;
  // Where the wall time went: loading the code, reading the file, counting, compacting.
  const phases = { load: loaded - start.t0, read: read - loaded, count: counted - read, compact: end - counted };
  const c = process.cpuUsage(start.c0);
  const cpu = (c.user + c.system) / 1000;
  // The whole process's CPU so far (node's start, module load and reading the file included).
  const all = process.cpuUsage();
  const processCpu = (all.user + all.system) / 1000;
  const { ok, tokensBefore: before, tokensAfter: after } = r;
  process.stdout.write(JSON.stringify({ ms, cpu, processCpu, phases, ok, before, after }) + '\n');
}
