import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/** The loader that runs a bundle with its code cache (plain CommonJS: node runs it as it is). */
export const LOADER = fileURLToPath(new URL('../bin/loadCached.cjs', import.meta.url));

/**
 * Bundles `entry` (TypeScript exporting `main(argv)`) into one CommonJS file, `outfile`, and makes
 * its V8 code cache (`outfile.v8cache`, see bin/loadCached.cjs) with one training run in a fresh
 * node: `main(trainArgs)`, after which the bytecode of every function it called is saved. The
 * cache is only as good as the training: functions it never called still compile on first use.
 *
 * The bundle is CommonJS because V8 caches a classic script's functions after they ran; Node's
 * own compile cache for ES modules is made right after parsing, before any function is compiled.
 * `import.meta.url` becomes the bundle's own file URL (vocab.ts finds the vocabulary from it).
 * Returns what the training run printed.
 */
export function buildCachedBundle(entry: string, outfile: string, trainArgs: string[]): string {
  buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    outfile,
    // Resolved from node_modules at run time: js-tiktoken is only the fallback when no vocabulary
    // asset is found (vocab.ts), gpt-tokenizer only the bench's (its vocabularies are megabytes).
    external: ['js-tiktoken', 'gpt-tokenizer'],
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    logLevel: 'error',
  });
  // The bundle's path is in the script, not in process.argv[1] (which the CLI's main.ts takes
  // for "run me directly").
  const train =
    `const bundle = require(${JSON.stringify(LOADER)}).loadCached(${JSON.stringify(outfile)});` +
    `Promise.resolve(bundle.exports.main(process.argv.slice(1))).then(() => bundle.save());`;
  const r = spawnSync(process.execPath, ['-e', train, ...trainArgs], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`training run of ${outfile} failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}
