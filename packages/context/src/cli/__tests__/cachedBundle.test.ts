import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCachedBundle, LOADER } from '../../../scripts/cachedBundle';
import { main } from '../main';
import { transcriptFilesBySize } from '../transcripts';

/**
 * The CLI as it ships built (scripts/buildCli.ts): one CommonJS bundle that plain node runs, with
 * the V8 code cache of a training run beside it (bin/loadCached.cjs). Real processes: the build,
 * its training run and every run below are fresh node processes.
 */
const tmp = mkdtempSync(path.join(os.tmpdir(), 'tl-cached-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const bySize = transcriptFilesBySize();
const bundle = path.join(tmp, 'cli', 'threadline-context.cjs');
const cache = `${bundle}.v8cache`;

/** The bundle run by a fresh node through the loader: what it printed, its exit code and the cache's fate. */
function runBundle(...argv: string[]): { out: string; code: number | null; cache: string } {
  // As the bin runs it (its own file is process.argv[1], not the bundle's: main.ts would run twice).
  const script =
    `const b = require(${JSON.stringify(LOADER)}).loadCached(${JSON.stringify(bundle)});` +
    `b.exports.main(process.argv.slice(1)).then((code) => { process.stderr.write('cache:' + b.cache); process.exitCode = code; });`;
  const r = spawnSync(process.execPath, ['-e', script, ...argv], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return { out: r.stdout, code: r.status, cache: /cache:(\w+)/.exec(r.stderr)?.[1] ?? r.stderr };
}

/** The same command run by the TypeScript sources in this process. */
async function runSources(...argv: string[]): Promise<string> {
  const out: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: () => {} });
  expect(code).toBe(0);
  return out.map((l) => l + '\n').join('');
}

// Each case below runs fresh node processes doing real work (a 1 MB transcript counted or
// compacted): bounded by the work, not by how busy the machine is, like the build's beforeAll.
const PROCESS_RUNS_MS = 300_000;

describe('the CLI bundle and its code cache', () => {
  // Trained on the smallest transcript, run on the largest (the cold bench's pair).
  const smallest = bySize[0]!;
  const largest = bySize.at(-1)!;

  beforeAll(() => {
    buildCachedBundle(path.join(import.meta.dirname, '../main.ts'), bundle, ['compact', smallest, '--manual']);
  }, PROCESS_RUNS_MS);

  it('is built with a code cache made by a training run', () => {
    expect(bySize.length).toBeGreaterThan(1);
    expect(existsSync(bundle)).toBe(true);
    // The cache holds the bytecode of what the training called: far more than an empty cache.
    expect(statSync(cache).size).toBeGreaterThan(100_000);
  });

  it(
    'runs in plain node with V8 taking the cache, and answers as the sources do',
    async () => {
      const r = runBundle('compact', largest, '--json');
      expect(r.cache).toBe('used');
      expect(r.code).toBe(0);
      expect(r.out).toBe(await runSources('compact', largest, '--json'));
    },
    PROCESS_RUNS_MS,
  );

  it(
    'runs the same without a cache V8 can use: a stale one is not offered, a damaged one is rejected, a missing one not needed',
    async () => {
      // The cache's fate does not depend on the input: the smallest transcript keeps three runs light.
      const expected = await runSources('count', smallest, '--json');
      // A bundle rewritten after its cache (the same bytes: V8 itself would take the cache).
      const later = new Date(statSync(cache).mtimeMs + 2000);
      utimesSync(bundle, later, later);
      const stale = runBundle('count', smallest, '--json');
      expect(stale.cache).toBe('stale');
      expect(stale.out).toBe(expected);
      writeFileSync(cache, Buffer.alloc(4096, 7));
      utimesSync(cache, later, later);
      const damaged = runBundle('count', smallest, '--json');
      expect(damaged.cache).toBe('rejected');
      expect(damaged.out).toBe(expected);
      rmSync(cache);
      const none = runBundle('count', smallest, '--json');
      expect(none.cache).toBe('none');
      expect(none.out).toBe(expected);
    },
    PROCESS_RUNS_MS,
  );
});
