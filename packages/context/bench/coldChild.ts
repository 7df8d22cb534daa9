// One fresh process of the cold-compaction bench (cold.ts): reads one transcript, then times the
// first compaction of this process: loading the tokenizer's vocabulary, counting every message,
// compacting (default strategy, extractive summary). Prints {"ms": …, "cpu": …} on stdout (wall
// and CPU milliseconds of that work, JIT threads included) and the whole process's CPU so far.
import { readChatFile } from '../src/cli/transcripts';
import type { Strategy } from '@threadline/protocol';
import { compactFromScratch } from './common';

const file = process.argv[2]!;
const strategy = (process.argv[3] ?? 'legacy_segmented') as Strategy;
const messages = readChatFile(file);
const t0 = performance.now();
const c0 = process.cpuUsage();
const r = await compactFromScratch(messages, strategy);
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
const cpu = (c.user + c.system) / 1000;
// The whole process's CPU so far (node's start, module load and reading the file included).
const all = process.cpuUsage();
const processCpu = (all.user + all.system) / 1000;
process.stdout.write(
  JSON.stringify({ ms, cpu, processCpu, ok: r.ok, before: r.tokensBefore, after: r.tokensAfter }) + '\n',
);
