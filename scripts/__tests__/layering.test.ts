import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { resolve } from 'node:path';

// The layering of docs/architecture.md is enforced by lint: each case is an import that must fail.
const root = resolve(__dirname, '../..');
// The files linted here do not exist, so no tsconfig project has them: type-aware rules are off
// (the import rules need no types).
const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked });

async function errors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering rules', () => {
  it.each([
    ['apps/desktop/src/renderer/src/Bad.ts', `import { createAppApi } from '@threadline/agent';`],
    ['apps/desktop/src/renderer/src/Bad.ts', `import { readFileSync } from 'node:fs';`],
    ['apps/desktop/src/renderer/src/Bad.ts', `import { ipcRenderer } from 'electron';`],
    ['packages/protocol/src/bad.ts', `import { compact } from '@threadline/context';`],
    ['packages/context/src/bad.ts', `import { writeFileSync } from 'node:fs';`],
    ['packages/context/src/bad.ts', `import { openStore } from '@threadline/store';`],
    ['packages/store/src/bad.ts', `import { compact } from '@threadline/context';`],
    ['apps/server/src/bad.ts', `import { openStore } from '@threadline/store';`],
    ['packages/agent/src/bad.ts', `import { x } from '../../context/src/index';`],
    ['apps/desktop/src/main/app.ts', `import { ipcMain } from 'electron';`],
    ['apps/desktop/src/main/window.ts', `import { BrowserWindow, ipcMain } from 'electron';`],
    ['apps/desktop/src/main/bad.ts', `import * as electron from 'electron';`],
    ['apps/desktop/src/preload/bad.ts', `import { ipcMain } from 'electron';`],
    ['apps/server/src/bad.ts', `import { ipcMain } from 'electron';`],
    ['scripts/bad.ts', `import { ipcMain } from 'electron';`],
    ['e2e/bad.ts', `import { ipcMain } from 'electron';`],
  ])('%s: %s fails lint', async (file, code) => {
    expect((await errors(file, `${code}\nexport {};\n`)).length).toBeGreaterThan(0);
  });

  it.each([
    ['packages/agent/src/ok.ts', `import { compact } from '@threadline/context';`],
    ['apps/desktop/src/renderer/src/Ok.ts', `import { parseNotice } from '@threadline/protocol';`],
    ['packages/context/src/cli/ok.ts', `import { readFileSync } from 'node:fs';`],
    ['apps/desktop/src/main/ipc.ts', `import { ipcMain } from 'electron';`],
    ['apps/desktop/src/main/window.ts', `import { BrowserWindow } from 'electron';`],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await errors(file, `${code}\nexport {};\n`)).toEqual([]);
  });
});

describe('type-aware lint', () => {
  it('a floating promise and an async callback where a plain one is expected are errors', async () => {
    // An existing file of the scripts project, linted with this text in its place.
    const typed = new ESLint({ cwd: root });
    const code = [
      `async function later(): Promise<number> {`,
      `  return 1;`,
      `}`,
      `export function f(): void {`,
      `  later();`,
      `  process.on('exit', async () => {`,
      `    await later();`,
      `  });`,
      `}`,
      ``,
    ].join('\n');
    const [result] = await typed.lintText(code, { filePath: resolve(root, 'scripts/electronBinary.ts') });
    const rules = result!.messages.map((m) => `${m.line}:${m.ruleId}`);
    expect(rules).toEqual(
      expect.arrayContaining(['5:@typescript-eslint/no-floating-promises', '6:@typescript-eslint/no-misused-promises']),
    );
  });
});
