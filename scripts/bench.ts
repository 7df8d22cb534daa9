// `pnpm bench`: the benchmark figures. Engine (view assembly, deterministic compaction, cold
// token counting, per-strategy quality table over the transcripts) then store (append, reopen,
// size, RSS), ui, runtime (issue 14's figures), cache (issue 24: how much of each request repeats
// the one before, per strategy), checkpoints, strict (issue 36: a long tool-heavy session against a
// strict provider and a small window: refused requests, failed compactions), delegate (issue 39: the
// parent's peak context exploring alone or with helpers), turn (issue 41: the files of the agent one
// turn runs through, direct writes to a session's fields, builders of the pending tool-call shape).
// `pnpm bench -- --quick` runs smaller sizes;
// `--only context|cold|store|ui|runtime|turn|meter|stall|guarded|hostile|cache|checkpoints|strict|delegate` one part
// (stall includes hostile; guarded = meter + stall beside their figures before issue 41's tokenizer
// change; `--input <words>` runs only the hostile inputs whose name contains them); `--json`
// prints the runtime figures as one JSON object on stdout (every table and progress line goes to stderr then).
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';

// `pnpm bench -- --only context` hands the script a literal `--` first; parseArgs would stop there.
const { values } = parseArgs({
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
    input: { type: 'string' },
  },
  strict: false,
  allowPositionals: true,
});
const quick = Boolean(values.quick);
const only = typeof values.only === 'string' ? values.only : null;
const json = Boolean(values.json);
// `--input <words>`: only the hostile inputs whose name contains them (`--only hostile --input PDF`).
const input = typeof values.input === 'string' ? values.input : null;
// In JSON mode stdout carries the one object and nothing else.
if (json) console.log = console.error;
const root = resolve(import.meta.dirname, '..');
const transcriptsDir = resolve(root, 'fixtures/transcripts');
if (!existsSync(transcriptsDir))
  console.warn(`bench: no transcripts at ${transcriptsDir}; transcript tables are skipped`);

const started = Date.now();
/** What the guarded-figures table compares with the recorded figures before the tokenizer change. */
const guarded: {
  meter?: import('../packages/agent/bench/meter').MeterFigures;
  stall?: import('../apps/server/bench/stall').StallFigures;
} = {};
if (!only || only === 'context') {
  console.log('\n=== context engine ===');
  const { runContextBench } = await import('../packages/context/bench/index');
  await runContextBench({ transcriptsDir, quick });
}
if (!only || only === 'cold') {
  console.log('\n=== cold compaction ===');
  const { coldCompactionBench } = await import('../packages/context/bench/cold');
  coldCompactionBench(transcriptsDir, quick);
}
if (!only || only === 'store') {
  console.log('\n=== store ===');
  const { runStoreBench } = await import('../packages/store/bench/index');
  await runStoreBench({ quick });
}
if (!only || only === 'ui') {
  console.log('\n=== ui ===');
  const { runUiBench } = await import('../apps/server/bench/ui');
  await runUiBench({ quick });
}
if (!only || only === 'runtime' || json) {
  console.log('\n=== runtime ===');
  const { measureRuntime, printRuntime, runtimeJson } = await import('../packages/agent/bench/runtime');
  const r = await measureRuntime({ quick });
  if (json) process.stdout.write(runtimeJson(r) + '\n');
  else printRuntime(r);
}
if (!only || only === 'turn') {
  console.log('\n=== turn ===');
  const { measureTrace, printTrace } = await import('../packages/agent/bench/trace');
  printTrace(await measureTrace());
  const { printOwnership } = await import('../packages/agent/bench/ownership');
  printOwnership();
}
if (!only || only === 'meter' || only === 'guarded') {
  console.log('\n=== first meter reading ===');
  const { measureMeter, printMeter } = await import('../packages/agent/bench/meter');
  guarded.meter = await measureMeter({ quick });
  printMeter(guarded.meter);
}
if (!only || only === 'stall' || only === 'guarded') {
  console.log('\n=== request loop under load ===');
  const { measureStall, printStall } = await import('../apps/server/bench/stall');
  guarded.stall = await measureStall();
  printStall(guarded.stall);
}
if (guarded.meter && guarded.stall) {
  console.log('\n=== guarded figures (issue 41): before the tokenizer change, and now ===');
  const { printGuarded } = await import('./benchGuarded');
  printGuarded({ meter: guarded.meter, stall: guarded.stall });
}
if (!only || only === 'stall' || only === 'hostile') {
  console.log('\n=== request loop under hostile input (issue 35) ===');
  const { measureHostile, printHostile } = await import('../apps/server/bench/hostile');
  printHostile(await measureHostile({ input }));
}

if (!only || only === 'checkpoints') {
  console.log('\n=== checkpoints ===');
  const { measureCheckpoints, printCheckpoints } = await import('../packages/agent/bench/checkpoints');
  printCheckpoints(await measureCheckpoints({ quick }));
}

if (!only || only === 'delegate') {
  console.log("\n=== helpers: the parent's peak context, exploring alone or with helpers ===");
  const { measureDelegation, printDelegation } = await import('../packages/agent/bench/delegation');
  printDelegation(await measureDelegation({ transcriptsDir, quick }));
}

if (!only || only === 'cache') {
  console.log('\n=== prompt cache: request shape per strategy ===');
  const { runCacheBench } = await import('../packages/agent/bench/cacheShape');
  await runCacheBench({ quick });
}
if (!only || only === 'strict') {
  console.log('\n=== strict provider, small window: every request valid, every compaction applied ===');
  const { runStrictBench } = await import('../packages/agent/bench/strictSession');
  await runStrictBench();
}
console.log(`\nbench finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
