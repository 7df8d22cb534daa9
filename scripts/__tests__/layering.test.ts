import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
// @ts-expect-error plain .js config without types
import { FOLDER_LAYERS } from '../../eslint.config.js';

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

// The folder layers inside agent and context (FOLDER_LAYERS in eslint.config.js): each import
// climbs into a folder of its level or above (or to the package index, or out of a leaf) and fails
// with the folder rule's own message.
describe('folder layers', () => {
  it.each([
    ['packages/agent/src/workspace/bad.ts', `import { runTurn } from '../turn/runTurn';`, 'agent/src/workspace/'],
    ['packages/agent/src/process/bad.ts', `import type { TurnDeps } from '../turn/deps';`, 'agent/src/process/'],
    ['packages/agent/src/tools/bad.ts', `import { runToolCall } from '../turn/toolStep';`, 'agent/src/tools/'],
    ['packages/agent/src/tools/bad.ts', `import { McpManager } from '../mcp/manager';`, 'agent/src/tools/'],
    ['packages/agent/src/sandbox/bad.ts', `import { ToolRegistry } from '../tools/registry';`, 'agent/src/sandbox/'],
    ['packages/agent/src/turn/bad.ts', `import { createAppApi } from '../api/createAppApi';`, 'agent/src/turn/'],
    // session/ (one open session's state) is below the loop: it never reaches up into turn/.
    ['packages/agent/src/session/bad.ts', `import type { Turn } from '../turn/turn';`, 'agent/src/session/'],
    ['packages/agent/src/workspace/bad.ts', `import { createAppApi } from '../index';`, 'the package index'],
    ['packages/agent/src/checkpoints/bad.ts', `import { createAppApi } from '..';`, 'the package index'],
    ['packages/agent/src/noticeTexts.ts', `import type { TurnDeps } from './turn/deps';`, 'is a leaf'],
    ['packages/context/src/tokens/bad.ts', `import { imagePartsOf } from '../view/images';`, 'context/src/tokens/'],
    ['packages/context/src/view/bad.ts', `import { buildUnits } from '../compaction/units';`, 'context/src/view/'],
    ['packages/context/src/truncate/bad.ts', `import { ensureCallOutputsPresent } from '../normalize';`, 'truncate/'],
    [
      'packages/context/src/memory/bad.ts',
      `import { buildLedger } from '../compaction/ledger';`,
      'context/src/memory/',
    ],
    ['packages/context/src/compaction/steps/bad.ts', `import { applyGate } from '../../gate/apply';`, 'compaction/'],
    ['packages/context/src/markers.ts', `import { countText } from './tokens/count';`, 'is a leaf'],
    ['packages/context/src/tokens/bad.ts', `import { tasks } from '../worker/tasks';`, 'context/src/tokens/'],
    ['packages/context/src/pool/pool.ts', `import { countTextTokens } from '../tokens/encoder';`, 'context/src/pool/'],
    ['packages/context/src/pool/bad.ts', `import { tasks } from '../worker/tasks';`, 'context/src/pool/'],
  ])('%s: %s fails lint', async (file, code, says) => {
    const found = await errors(file, `${code}\nexport {};\n`);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(says);
  });

  it.each([
    ['packages/agent/src/turn/ok.ts', `import { classifyPath } from '../workspace/reach';`],
    ['packages/agent/src/turn/ok.ts', `import { ToolRegistry } from '../tools/registry';`],
    ['packages/agent/src/api/ok.ts', `import { runTurn } from '../turn/runTurn';`],
    ['packages/agent/src/turn/ok.ts', `import { Sessions } from '../session/session';`],
    ['packages/agent/src/mcp/ok.ts', `import { ToolRegistry } from '../tools/registry';`],
    ['packages/agent/src/process/ok.ts', `import { TURN_ABORTED_TEXT } from '../noticeTexts';`],
    ['packages/agent/src/workspace/ok.ts', `import { classifyPath } from './reach';`],
    ['packages/agent/src/turn/__tests__/ok.test.ts', `import { createAppApi } from '../../api/createAppApi';`],
    ['packages/agent/src/ok.ts', `import { runTurn } from './turn/runTurn';`],
    ['packages/context/src/view/ok.ts', `import { countMessageTokens } from '../tokens/count';`],
    ['packages/context/src/view/ok.ts', `import { isAbortMarker } from '../markers';`],
    ['packages/context/src/compaction/steps/ok.ts', `import { orderAgentMessages } from '../../view/order';`],
    ['packages/context/src/compaction/steps/ok.ts', `import { COMPACTION_KINDS } from '../state';`],
    ['packages/context/src/gate/ok.ts', `import { mergeFacts } from '../memory/merge';`],
    ['packages/context/src/cli/ok.ts', `import { applyGate } from '../gate/apply';`],
    ['packages/context/src/tokens/ok.ts', `import { runOffThread } from '../pool/pool';`],
    ['packages/context/src/worker/ok.ts', `import { runOffThread } from '../pool/pool';`],
    ['packages/context/src/worker/ok.ts', `import { compact } from '../compaction/compact';`],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await errors(file, `${code}\nexport {};\n`)).toEqual([]);
  });

  it('every folder of agent/src and context/src has a level', () => {
    for (const [pkg, { levels }] of Object.entries(FOLDER_LAYERS as Record<string, { levels: unknown[] }>)) {
      const listed = levels.flatMap((l) => (Array.isArray(l) ? l : (l as { folders: string[] }).folders));
      const folders = readdirSync(resolve(root, `packages/${pkg}/src`), { withFileTypes: true })
        .filter((d) => d.isDirectory() && d.name !== '__tests__')
        .map((d) => d.name);
      expect([...listed].sort()).toEqual([...folders].sort());
    }
  });

  it('no folder below the top of src/ is named like a top folder (the rules match `../<folder>`)', () => {
    for (const pkg of Object.keys(FOLDER_LAYERS as object)) {
      const src = resolve(root, `packages/${pkg}/src`);
      const top = new Set(
        readdirSync(src, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name),
      );
      const nested = readdirSync(src, { recursive: true, withFileTypes: true })
        // Tests are free of the folder rules, so folders under __tests__ do not count.
        .filter((d) => d.isDirectory() && d.parentPath !== src && !`${d.parentPath}/${d.name}`.includes('__tests__'))
        .map((d) => d.name);
      expect(nested.filter((name) => top.has(name))).toEqual([]);
    }
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
    // Building the type-checked program of the scripts project takes ~20 s on an idle 2-core
    // machine: the limit leaves room for a loaded one (a timeout here would say nothing of lint).
  }, 180_000);
});

// The renderer's rule for where a route call lives (docs/architecture.md): store/ only.
describe('route calls in the renderer', () => {
  async function routeErrors(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${code}\nexport {};\n`, { filePath: resolve(root, filePath) });
    return result!.messages.filter((m) => m.message.includes('store/routes.ts')).map((m) => m.ruleId ?? '');
  }
  const base = 'apps/desktop/src/renderer/src';

  it.each([
    [`${base}/components/Bad.tsx`, `import { call } from '../transport';`, 'no-restricted-imports'],
    [`${base}/components/form/Bad.tsx`, `import { RpcError, call } from '../../transport';`, 'no-restricted-imports'],
    [`${base}/hooks/useBad.ts`, `import { call } from '../transport/index';`, 'no-restricted-imports'],
    [`${base}/lib/bad.ts`, `import { call } from '../transport';`, 'no-restricted-imports'],
    [
      `${base}/components/Bad.tsx`,
      `import { getBridge } from '../transport';\nvoid getBridge().invoke('settings.get', {});`,
      'no-restricted-syntax',
    ],
  ])('%s: %s fails lint', async (file, code, rule) => {
    expect(await routeErrors(file, code)).toEqual([rule]);
  });

  it.each([
    [`${base}/store/routes.ts`, `import { call } from '../transport';\nvoid call('settings.get', {});`],
    [`${base}/store/chatSlice.ts`, `import { call } from '../transport';\nvoid call('settings.get', {});`],
    [
      `${base}/components/Ok.tsx`,
      `import { RpcError, getBridge } from '../transport';\nvoid getBridge().shell, RpcError;`,
    ],
    [`${base}/components/Ok.tsx`, `import { mcpRoutes } from '../store/routes';\nvoid mcpRoutes.list({});`],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await routeErrors(file, code)).toEqual([]);
  });
});
