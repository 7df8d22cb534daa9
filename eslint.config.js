// Lint, and the layering of docs/architecture.md: an import across a forbidden boundary is an
// error. protocol → nothing; context → protocol (no I/O outside its CLI/bench); store → protocol;
// agent → protocol, context, store; apps → agent, protocol; renderer → protocol only.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const NODE_IO = [
  'fs',
  'fs/promises',
  'node:fs',
  'node:fs/promises',
  'child_process',
  'node:child_process',
  'net',
  'node:net',
  'http',
  'node:http',
  'https',
  'node:https',
  'os',
  'node:os',
];
const ws = (...names) => names.map((n) => `@threadline/${n}`);
/** Relative imports that climb into another package or app are forbidden everywhere. */
const crossTree = [
  '**/packages/*/src/**',
  '../../*/src/**',
  '../../../*/src/**',
  '../../../../*/src/**',
  '../../packages/**',
  '../../../packages/**',
  '../../apps/**',
  '../../../apps/**',
];

/**
 * ipcMain is imported in apps/desktop/src/main/ipc.ts only: every renderer → main call goes
 * through its one handler, which checks the sender first. Part of every rule set below (a later
 * `no-restricted-imports` replaces an earlier one for the same file, it does not add to it).
 */
const IPC_MAIN_ONLY = {
  name: 'electron',
  importNames: ['ipcMain'],
  message: 'ipcMain is used in apps/desktop/src/main/ipc.ts only (one checked handler for every call).',
};

function layer(files, forbidden, message, { allowIpcMain = false } = {}) {
  return {
    files,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...forbidden.map((name) => ({ name, message })), ...(allowIpcMain ? [] : [IPC_MAIN_ONLY])],
          patterns: [
            {
              group: crossTree,
              message: 'Import packages by name, never by a path into another package.',
            },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/out/**',
      '**/dist/**',
      '**/release/**',
      'e2e/screenshots/**',
      'test-results/**',
      '.tools/**',
      '**/.tsbuild/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // Type-aware rules for every TypeScript file (each is in a project of the root tsconfig.json):
  // a promise is awaited, handled or explicitly `void`ed, and never passed where a plain callback
  // is expected (an async listener whose rejection nobody sees).
  {
    files: ['**/*.{ts,tsx,mts,cts}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  layer(['**/*.{ts,tsx,mts,cts,js,mjs,cjs}'], [], ''),
  layer(
    ['packages/protocol/**'],
    [...ws('context', 'store', 'agent', 'fake-llm'), ...NODE_IO],
    'protocol depends on nothing.',
  ),
  layer(
    ['packages/context/src/**'],
    [...ws('store', 'agent', 'fake-llm'), ...NODE_IO],
    'context is pure: no I/O, only protocol.',
  ),
  // The tokenizer reads its prebuilt vocabulary file (as it imported js-tiktoken's ranks before):
  // the one read-only file access in context's library code.
  layer(
    ['packages/context/src/tokens/vocab.ts'],
    ws('store', 'agent', 'fake-llm'),
    'context depends only on protocol.',
  ),
  // The work pool (worker/pool.ts) starts worker threads: it looks for the worker file and sizes
  // itself to the machine's parallelism.
  layer(['packages/context/src/worker/pool.ts'], ws('store', 'agent', 'fake-llm'), 'context depends only on protocol.'),
  layer(
    ['packages/context/src/cli/**', 'packages/context/bench/**', 'packages/context/src/**/__tests__/**'],
    ws('store', 'agent', 'fake-llm'),
    'context depends only on protocol.',
  ),
  layer(['packages/store/**'], ws('context', 'agent', 'fake-llm'), 'store depends only on protocol.'),
  layer(['packages/agent/src/**'], ws('fake-llm'), 'agent never depends on test servers outside its tests.'),
  layer(['packages/agent/src/**/__tests__/**'], [], ''),
  layer(['packages/fake-llm/**'], ws('context', 'store', 'agent'), 'fake-llm stands alone.'),
  layer(['apps/server/src/**'], ws('context', 'store'), 'apps talk to the runtime through agent and protocol.'),
  layer(
    ['apps/desktop/src/main/**'],
    ws('context', 'store', 'fake-llm'),
    'apps talk to the runtime through agent and protocol.',
  ),
  layer(
    ['apps/desktop/src/main/ipc.ts'],
    ws('context', 'store', 'fake-llm'),
    'apps talk to the runtime through agent and protocol.',
    { allowIpcMain: true },
  ),
  layer(
    ['apps/desktop/src/preload/**'],
    [...ws('context', 'store', 'agent', 'fake-llm'), ...NODE_IO],
    'the preload exposes a typed bridge and nothing else.',
  ),
  layer(
    ['apps/desktop/src/renderer/**'],
    [...ws('context', 'store', 'agent', 'fake-llm'), 'electron', ...NODE_IO, 'path', 'node:path'],
    'the renderer depends on protocol only: never Node, never electron, never the runtime.',
  ),
  {
    files: ['apps/desktop/src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
