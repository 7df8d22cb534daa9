// `pnpm --filter @threadline/context build:cli`: the CLI as one CommonJS bundle that plain node
// runs, with the V8 code cache of a training run (scripts/cachedBundle.ts): dist/cli/
// threadline-context.cjs and its .v8cache. bin/threadline-context.mjs runs it while no source
// is newer, else the TypeScript sources through tsx. Training: `compact --manual` of the smallest
// transcript (reading, counting, the memory, compacting: the path a fresh process takes).
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildCachedBundle } from './cachedBundle';
import { transcriptFilesBySize } from '../src/cli/transcripts';

const out = resolve(import.meta.dirname, '../dist/cli/threadline-context.cjs');
const smallest = transcriptFilesBySize()[0]!;
buildCachedBundle(resolve(import.meta.dirname, '../src/cli/main.ts'), out, ['compact', smallest, '--manual']);
console.log(`${out}: ${statSync(out).size} bytes, code cache ${statSync(`${out}.v8cache`).size} bytes`);
