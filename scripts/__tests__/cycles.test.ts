import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ALLOWED_EDGES, findCycles } from '../checkCycles';

// The import-cycle check of `pnpm test` (`pnpm cycles`), run on small temporary trees.
const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const temp = mkdtempSync(join(tmpdir(), 'tl-cycles-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

let n = 0;
function tree(files: Record<string, string>): string {
  const dir = join(temp, `t${n++}`);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** The script as `pnpm cycles` runs it, on another root. */
async function runCheck(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(tsx, ['scripts/checkCycles.ts', '--root', dir], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('import-cycle check', () => {
  it('fails on a two-file cycle and names it', async () => {
    const dir = tree({
      'src/a.ts': `import { b } from './b';\nexport const a = () => b();\n`,
      'src/b.ts': `import { a } from './a';\nexport const b = (): number => (a ? 1 : 0);\n`,
      'src/c.ts': `import { a } from './a';\nexport const c = a;\n`,
    });
    const r = await runCheck(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('1 import cycle(s) in 3 files');
    expect(r.stderr).toContain('1) src/a.ts -> src/b.ts -> src/a.ts');
  });

  it('passes a tree without a cycle', async () => {
    const dir = tree({
      'src/a.ts': `import { b } from './b';\nexport const a = () => b();\n`,
      'src/b.ts': `export const b = (): number => 1;\n`,
    });
    const r = await runCheck(dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No import cycle in 2 files, nor between the folders of any package.');
  });

  it('counts type-only imports, re-exports, .tsx files, and skips node_modules and built output', async () => {
    const dir = tree({
      'src/types.ts': `import type { Row } from './view';\nexport interface State { rows: Row[] }\n`,
      'src/view.tsx': `export type { State } from './types';\nexport interface Row { id: string }\n`,
      'node_modules/x/a.ts': `import './b';\n`,
      'node_modules/x/b.ts': `import './a';\n`,
      'out/a.ts': `import './b';\n`,
      'out/b.ts': `import './a';\n`,
    });
    const { files, cycles } = await findCycles(dir);
    expect(files).toBe(2);
    expect(cycles).toEqual([['src/types.ts', 'src/view.tsx']]);
  });

  it('an allowed edge hides only the cycle it closes', async () => {
    const dir = tree({
      'a.ts': `import './b';\n`,
      'b.ts': `import './a';\nimport './c';\n`,
      'c.ts': `import './b';\n`,
    });
    expect((await findCycles(dir)).cycles.length).toBeGreaterThan(0);
    expect((await findCycles(dir, ['b.ts -> a.ts', 'c.ts -> b.ts'])).cycles).toEqual([]);
    expect((await findCycles(dir, ['b.ts -> a.ts'])).cycles).toEqual([['b.ts', 'c.ts']]);
  });

  it('allows no more than the cycles of the turn that its restructuring removes', () => {
    expect(ALLOWED_EDGES.every((e) => e.startsWith('packages/agent/src/turn/'))).toBe(true);
  });
});

describe('folder-level cycle check', () => {
  const pkg = (files: Record<string, string>): string => tree({ 'pkg/package.json': '{}', ...files });

  it('fails on folders that import each other with no file-level cycle, and prints one import per edge', async () => {
    const dir = pkg({
      'pkg/src/a/one.ts': `import { two } from '../b/two';\nexport const one = () => two;\n`,
      'pkg/src/b/two.ts': `export const two = 2;\n`,
      'pkg/src/b/three.ts': `import { four } from '../c/four';\nexport const three = four;\n`,
      'pkg/src/c/four.ts': `import { five } from '../a/five';\nexport const four = five;\n`,
      'pkg/src/a/five.ts': `export const five = 5;\n`,
    });
    const check = await findCycles(dir);
    expect(check.cycles).toEqual([]);
    expect(check.folderCycles).toEqual([
      {
        dir: 'pkg/src',
        members: ['a/', 'b/', 'c/'],
        edges: [
          { from: 'a/', to: 'b/', issuer: 'pkg/src/a/one.ts', dependency: 'pkg/src/b/two.ts' },
          { from: 'b/', to: 'c/', issuer: 'pkg/src/b/three.ts', dependency: 'pkg/src/c/four.ts' },
          { from: 'c/', to: 'a/', issuer: 'pkg/src/c/four.ts', dependency: 'pkg/src/a/five.ts' },
        ],
      },
    ]);
    const r = await runCheck(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('1 folder-level import cycle(s):\n1) in pkg/src/: a/ -> b/ -> c/ -> a/');
    expect(r.stderr).toContain('a/ -> b/: a/one.ts imports b/two.ts');
    expect(r.stderr).toContain('c/ -> a/: c/four.ts imports a/five.ts');
  });

  it('checks a folder with subfolders against its own files, one level at a time', async () => {
    const dir = pkg({
      // Inside top/: steps/ -> words.ts -> steps/ (top/ as a whole is one node of src/, no cycle there).
      'pkg/src/top/steps/cut.ts': `import { words } from '../words';\nexport const cut = words;\n`,
      'pkg/src/top/steps/prune.ts': `export const prune = 1;\n`,
      'pkg/src/top/words.ts': `import { prune } from './steps/prune';\nexport const words = prune;\n`,
      'pkg/src/top/compact.ts': `import { cut } from './steps/cut';\nexport const compact = cut;\n`,
    });
    const { cycles, folderCycles } = await findCycles(dir);
    expect(cycles).toEqual([]);
    expect(folderCycles.map((c) => [c.dir, c.members])).toEqual([['pkg/src/top', ['steps/', 'words.ts']]]);
  });

  it('a loose file of src/ is its own node; tests, files outside src/ and outside a package are left out', async () => {
    const dir = pkg({
      // index.ts imports a/, a/ imports the leaf markers.ts: no cycle.
      'pkg/src/index.ts': `export * from './a/one';\n`,
      'pkg/src/markers.ts': `export const mark = '*';\n`,
      'pkg/src/a/one.ts': `import { mark } from '../markers';\nimport { b } from '../b/b';\nexport const one = mark + b;\n`,
      'pkg/src/b/b.ts': `export const b = 'b';\n`,
      // A test of b/ importing a/ is no edge b/ -> a/.
      'pkg/src/b/__tests__/b.test.ts': `import { one } from '../../a/one';\nexport const t = one;\n`,
      'pkg/src/b/b.test.ts': `import { one } from '../a/one';\nexport const t = one;\n`,
      // Not under a package's src/.
      'pkg/bench/x/x.ts': `import '../y/y';\n`,
      'pkg/bench/y/y.ts': `export const y = 1;\n`,
      'pkg/bench/y/z.ts': `import '../x/w';\n`,
      'pkg/bench/x/w.ts': `export const w = 1;\n`,
      'loose/src/x/x.ts': `import '../y/y';\n`,
      'loose/src/y/y.ts': `export const y = 1;\n`,
      'loose/src/y/z.ts': `import '../x/w';\n`,
      'loose/src/x/w.ts': `export const w = 1;\n`,
    });
    const check = await findCycles(dir);
    expect(check.folderCycles).toEqual([]);
    const r = await runCheck(dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('No import cycle in 14 files, nor between the folders of any package.');
  });
});
