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
    expect(r.stdout).toContain('No import cycle in 2 files.');
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
