#!/usr/bin/env node
// Runs the CLI. When `pnpm --filter @threadline/context build:cli` has made its bundle (one
// CommonJS file with its V8 code cache, scripts/buildCli.ts) and no source file is newer than it,
// plain node runs that; otherwise the TypeScript sources run through tsx (workspace packages ship
// source), so an edit is never hidden behind an old build.
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/cli/threadline-context.cjs', import.meta.url));
// What the bundle is built from: this package's sources and vocabulary, and the protocol's.
const sources = ['../src', '../vocab', '../../protocol/src'].map((rel) => fileURLToPath(new URL(rel, import.meta.url)));

/** The newest modification time of the files under `dir`, or 0 when there is none. */
function newest(dir) {
  let at = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) at = Math.max(at, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
  }
  return at;
}

function builtAt() {
  try {
    return statSync(bundle).mtimeMs;
  } catch {
    return -1;
  }
}

const built = builtAt();
if (built >= 0 && sources.every((dir) => newest(dir) <= built)) {
  const { loadCached } = createRequire(import.meta.url)('./loadCached.cjs');
  process.exitCode = await loadCached(bundle).exports.main(process.argv.slice(2));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli/main.ts');
  process.exitCode = await main(process.argv.slice(2));
}
