// Fails when the source has an import cycle, at two grains. Run by `pnpm test` (`pnpm cycles`).
// - Files: every TypeScript file of the repository (packages, apps, scripts, e2e; node_modules and
//   built output left out), type-only imports, re-exports and dynamic imports included. dpdm (the
//   TypeScript compiler's parser and module resolution, so workspace packages resolve to their
//   sources) reads the graph; a depth-first walk of it finds a cycle whenever there is one.
// - Folders: inside each package's `src/` (every folder holding a package.json: packages/*, apps/*),
//   each folder of `src/` is one node, and each file directly in `src/` is a node of its own; any
//   cycle among them fails. Then the same inside every folder, one level down: its subfolders
//   collapse to a node each, its own files stay nodes of their own (so `apps/desktop/src` checks
//   main/ ~ preload/ ~ renderer/, then `renderer/src` checks components/ ~ store/ ~ hooks/…, and
//   `compaction/` checks steps/ against compaction's own files). Tests (`__tests__/`, `*.test.*`)
//   sit above everything and are left out of this grain. Each cycle prints with one import per edge.
import { existsSync, globSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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
  /** Each folder-level cycle (one per strongly connected set of folders). */
  folderCycles: FolderCycle[];
}

export interface FolderCycle {
  /** The folder whose children form the cycle (path from the root), e.g. `packages/context/src`. */
  dir: string;
  /** Every node of the strongly connected set: `name/` for a folder, `name.ts` for a loose file. */
  members: string[];
  /** One cycle through them, as edges in import order, each with one import that makes it. */
  edges: { from: string; to: string; issuer: string; dependency: string }[];
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
  return { files: files.length, cycles, folderCycles: findFolderCycles(root, files, kept) };
}

const TEST_FILE = /(^|\/)__tests__\/|\.test\.[cm]?tsx?$/;

/** The folder-level cycles of every package's `src/` (see the top of this file). */
function findFolderCycles(root: string, files: readonly string[], tree: DependencyTree): FolderCycle[] {
  const srcs = [...new Set(files.map((f) => srcOf(root, f)).filter((s): s is string => s !== undefined))].sort();
  const out: FolderCycle[] = [];
  for (const src of srcs) {
    const inside = new Set(files.filter((f) => f.startsWith(`${src}/`) && !TEST_FILE.test(f)));
    const imports: [string, string][] = [];
    for (const [id, deps] of Object.entries(tree)) {
      const issuer = rel(root, id);
      if (!inside.has(issuer)) continue;
      for (const d of deps ?? []) {
        const dep = d.id && rel(root, d.id);
        if (dep && dep !== issuer && inside.has(dep)) imports.push([issuer, dep]);
      }
    }
    imports.sort(([a, b], [c, d]) => (a === c ? (b < d ? -1 : b > d ? 1 : 0) : a < c ? -1 : 1));
    const dirs = new Set([...inside].map((f) => dirname(f)).flatMap((d) => ancestors(d, src)));
    for (const dir of [...dirs].sort()) out.push(...cyclesAmongChildren(dir, imports));
  }
  return out;
}

/** `<package>/src` when the file is under the `src/` of a folder holding a package.json. */
function srcOf(root: string, file: string): string | undefined {
  const parts = file.split('/');
  for (let i = parts.length - 2; i >= 1; i--) {
    if (parts[i] !== 'src') continue;
    const pkg = parts.slice(0, i).join('/');
    if (existsSync(join(root, pkg, 'package.json'))) return `${pkg}/src`;
  }
  return undefined;
}

/** `dir` and every folder between it and `top` (both included). */
function ancestors(dir: string, top: string): string[] {
  const out: string[] = [];
  for (let d = dir; d.length >= top.length; d = dirname(d)) out.push(d);
  return out;
}

/** Inside `dir`: each subfolder is a node, each file directly in `dir` a node of its own. */
function cyclesAmongChildren(dir: string, imports: readonly [string, string][]): FolderCycle[] {
  const node = (file: string): string | undefined => {
    if (!file.startsWith(`${dir}/`)) return undefined;
    const rest = file.slice(dir.length + 1);
    const slash = rest.indexOf('/');
    return slash < 0 ? rest : `${rest.slice(0, slash)}/`;
  };
  // Per edge between two nodes, the first import (in name order) that makes it.
  const example = new Map<string, [string, string]>();
  const next = new Map<string, string[]>();
  for (const [issuer, dep] of imports) {
    const a = node(issuer);
    const b = node(dep);
    if (!a || !b || a === b || example.has(`${a}\0${b}`)) continue;
    example.set(`${a}\0${b}`, [issuer, dep]);
    next.set(a, [...(next.get(a) ?? []), b]);
  }
  const out: FolderCycle[] = [];
  for (const members of stronglyConnected([...next.keys()].sort(), next)) {
    // A set of loose files only is a file-level cycle, reported as such.
    if (members.length < 2 || !members.some((m) => m.endsWith('/'))) continue;
    const path = shortestCycle(members[0]!, new Set(members), next);
    out.push({
      dir,
      members,
      edges: path.map((from, i) => {
        const to = path[(i + 1) % path.length]!;
        const [issuer, dependency] = example.get(`${from}\0${to}`)!;
        return { from, to, issuer, dependency };
      }),
    });
  }
  return out;
}

/** Tarjan's strongly connected components, each sorted, in order of their first node. */
function stronglyConnected(nodes: readonly string[], next: ReadonlyMap<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const set: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      set.push(w);
      if (w === v) break;
    }
    out.push(set.sort());
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** The shortest path from `start` back to itself through `within` (breadth first). */
function shortestCycle(start: string, within: ReadonlySet<string>, next: ReadonlyMap<string, string[]>): string[] {
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of next.get(v) ?? []) {
      if (!within.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(from.get(path[0]!)!);
        return path;
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

const rel = (root: string, f: string): string => relative(root, resolve(root, f)).split('\\').join('/');

export function formatCycles(cycles: readonly string[][]): string {
  return cycles.map((c, i) => `${i + 1}) ${[...c, c[0]].join(' -> ')}`).join('\n');
}

export function formatFolderCycles(cycles: readonly FolderCycle[]): string {
  return cycles
    .map((c, i) => {
      const names = [...c.edges.map((e) => e.from), c.edges[0]!.from].join(' -> ');
      const others = c.members.filter((m) => !c.edges.some((e) => e.from === m));
      return [
        `${i + 1}) in ${c.dir}/: ${names}${others.length ? ` (in the same knot: ${others.join(', ')})` : ''}`,
        ...c.edges.map((e) => {
          const short = (f: string): string => f.slice(c.dir.length + 1);
          return `     ${e.from} -> ${e.to}: ${short(e.issuer)} imports ${short(e.dependency)}`;
        }),
      ].join('\n');
    })
    .join('\n');
}

async function main(): Promise<void> {
  const rootArg = process.argv.indexOf('--root');
  const root = rootArg > 0 ? resolve(process.argv[rootArg + 1]!) : resolve(fileURLToPath(import.meta.url), '../..');
  const { files, cycles, folderCycles } = await findCycles(root, rootArg > 0 ? [] : ALLOWED_EDGES);
  if (cycles.length > 0) {
    console.error(`${cycles.length} import cycle(s) in ${files} files:\n${formatCycles(cycles)}`);
    process.exitCode = 1;
  }
  if (folderCycles.length > 0) {
    console.error(`${folderCycles.length} folder-level import cycle(s):\n${formatFolderCycles(folderCycles)}`);
    process.exitCode = 1;
  }
  if (process.exitCode) return;
  console.log(`No import cycle in ${files} files, nor between the folders of any package.`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
