import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { resolve } from 'node:path';

// The layering of docs/architecture.md is enforced by lint: each case is an import that must fail.
const root = resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root });

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
  ])('%s: %s fails lint', async (file, code) => {
    expect((await errors(file, `${code}\nexport {};\n`)).length).toBeGreaterThan(0);
  });

  it.each([
    ['packages/agent/src/ok.ts', `import { compact } from '@threadline/context';`],
    ['apps/desktop/src/renderer/src/Ok.ts', `import { parseNotice } from '@threadline/protocol';`],
    ['packages/context/src/cli/ok.ts', `import { readFileSync } from 'node:fs';`],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await errors(file, `${code}\nexport {};\n`)).toEqual([]);
  });
});
