// `pnpm bench`: the figures of SPEC §8. Engine (view assembly, deterministic compaction, cold
// token counting, per-strategy quality table over the transcripts) then store (append, reopen,
// size, RSS). `pnpm bench -- --quick` runs smaller sizes; `--only context|store|ui` one part.
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';

// `pnpm bench -- --only context` hands the script a literal `--` first; parseArgs would stop there.
const { values } = parseArgs({
  args: process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--')),
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } },
  strict: false,
  allowPositionals: true,
});
const quick = Boolean(values.quick);
const only = typeof values.only === 'string' ? values.only : null;
const root = resolve(import.meta.dirname, '..');
const transcriptsDir = resolve(root, 'fixtures/transcripts');
if (!existsSync(transcriptsDir))
  console.warn(`bench: no transcripts at ${transcriptsDir}; transcript tables are skipped`);

const started = Date.now();
if (!only || only === 'context') {
  console.log('\n=== context engine ===');
  const { runContextBench } = await import('../packages/context/bench/index');
  await runContextBench({ transcriptsDir, quick });
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
console.log(`\nbench finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
