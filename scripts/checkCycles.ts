// Fails when the source has an import cycle: every TypeScript file of the repository (packages,
// apps, scripts, e2e; node_modules and built output left out), type-only imports, re-exports and
// dynamic imports included. dpdm (the TypeScript compiler's parser and module resolution, so
// workspace packages resolve to their sources) reads the graph; a depth-first walk of it finds a
// cycle whenever there is one. Run by `pnpm test` (`pnpm cycles`).
import { globSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree, type Dependency, type DependencyTree } from 'dpdm';

/** Folders never read: dependencies, built output, caches. */
const SKIP_DIR = /(^|\/)(node_modules|out|dist|release|\.tsbuild|\.tools|test-results|\.git)$/;

/**
 * Import edges (`issuer -> dependency`, paths from the root) the check leaves out, each one the
 * edge that closes a known cycle. This list only shrinks: once a cycle is gone, remove its edge
 * and the check keeps it gone. Nothing else belongs here.
 */
export const ALLOWED_EDGES: readonly string[] = [];

export interface CycleCheck {
  /** Files read. */
  files: number;
  /** Each cycle as its files in import order (the first imports the second … the last the first). */
  cycles: string[][];
}

export async function findCycles(root: string, allowed: readonly string[] = []): Promise<CycleCheck> {
  const files = globSync('**/*.{ts,tsx,mts,cts}', { cwd: root, exclude: (p) => SKIP_DIR.test(p) }).sort();
  const tree: DependencyTree = await parseDependencyTree(files, {
    cwd: root,
    context: root,
    // The root's tsconfig.json references every project, so each file resolves with its own options.
    tsconfig: undefined,
  });
  const skip = new Set(allowed);
  // Files in name order (dpdm fills the tree as its reads finish), so the walk and its report are
  // the same on every run.
  const kept: DependencyTree = {};
  for (const [id, deps] of Object.entries(tree).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    kept[id] =
      deps && deps.filter((d: Dependency) => !d.id || !skip.has(`${rel(root, d.issuer)} -> ${rel(root, d.id)}`));
  }
  const cycles = parseCircular(kept).map((c) => c.map((f) => rel(root, f)));
  return { files: files.length, cycles };
}

const rel = (root: string, f: string): string => relative(root, resolve(root, f)).split('\\').join('/');

export function formatCycles(cycles: readonly string[][]): string {
  return cycles.map((c, i) => `${i + 1}) ${[...c, c[0]].join(' -> ')}`).join('\n');
}

async function main(): Promise<void> {
  const rootArg = process.argv.indexOf('--root');
  const root = rootArg > 0 ? resolve(process.argv[rootArg + 1]!) : resolve(fileURLToPath(import.meta.url), '../..');
  const { files, cycles } = await findCycles(root, rootArg > 0 ? [] : ALLOWED_EDGES);
  if (cycles.length > 0) {
    console.error(`${cycles.length} import cycle(s) in ${files} files:\n${formatCycles(cycles)}`);
    process.exitCode = 1;
    return;
  }
  console.log(`No import cycle in ${files} files.`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
