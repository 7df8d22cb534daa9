// Lint, and the layering of docs/architecture.md: an import across a forbidden boundary is an
// error. Between packages: protocol → nothing; context → protocol (no I/O outside its CLI/bench);
// store → protocol; agent → protocol, context, store; apps → agent, protocol; renderer → protocol
// only. Inside agent and context: the folder layers of FOLDER_LAYERS below.
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

const ROUTE_RULE =
  'A route is called from the store only: a slice action, or store/routes.ts (docs/architecture.md, "Where a route call lives").';

function layer(files, forbidden, message, { allowIpcMain = false, patterns = [] } = {}) {
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
            ...patterns,
          ],
        },
      ],
    },
  };
}

/**
 * The folders of `src/` inside agent and context, bottom first. A folder may import the folders
 * of the levels below its own, never one of its level or above (nor the package's `index.ts`).
 * `leaves` are files (paths from `src/`) that every folder may import and that import nothing of
 * their package: the texts and markers written into a conversation, the work pool. Tests
 * (`__tests__`) are free. Every folder of `src/` has a level (scripts/__tests__/layering.test.ts
 * checks it).
 */
export const FOLDER_LAYERS = {
  context: {
    // pool/ starts the worker threads and knows no task: counting and cutting (tokens/, truncate/)
    // hand their heavy calls to it, while worker/ (the task table and the worker's side) runs the
    // whole engine, so it sits above compaction and memory. Folders import only folders below them.
    leaves: ['markers.ts'],
    levels: [
      ['pool'],
      ['tokens'],
      ['truncate', 'normalize', 'errors'],
      ['view'],
      ['memory'],
      ['compaction'],
      ['gate', 'worker'],
      ['cli'],
    ],
  },
  agent: {
    leaves: ['noticeTexts.ts'],
    levels: [
      // worker/: the job workers (run.ts starts them, serve.ts is their side) of searches and attachments.
      ['worker'],
      ['workspace', 'process', 'provider', 'attachments'],
      ['sandbox', 'rules'],
      ['checkpoints', 'tools', 'projectMemory'],
      ['mcp'],
      // session/: one open session's state (Session, its snapshot, cost, instructions, title), below the loop.
      ['session'],
      ['turn'],
      ['helpers'],
      ['api'],
    ],
  },
};

/** Per folder of `src/`, the pattern of the relative imports it may not make. */
function folderPatterns(pkg) {
  const { levels, leaves } = FOLDER_LAYERS[pkg];
  // A leaf inside a folder stays importable from everywhere (`../folder/file`).
  const leafPaths = leaves.filter((l) => l.includes('/')).map((l) => `${l.replace(/\.ts$/, '')}(\\.ts)?$`);
  const exceptLeaves = leafPaths.length ? `(?!(${leafPaths.join('|')}))` : '';
  const groups = levels.map((l) => (Array.isArray(l) ? { folders: l, importEachOther: false } : l));
  const out = new Map();
  groups.forEach((group, i) => {
    const above = groups.slice(i + 1).flatMap((g) => g.folders);
    for (const folder of group.folders) {
      const banned = [...(group.importEachOther ? [] : group.folders.filter((f) => f !== folder)), ...above];
      const names = banned.map((f) => `${f}/`).join(', ');
      out.set(folder, [
        {
          // `../x`, `../../x/y`…: a climb out of the folder into x; `..`, `../index`: the package index.
          regex: `^(\\.\\./)+${exceptLeaves}(${[...banned, 'index(\\.ts)?$'].join('|')})(/|$)|^\\.\\.(/\\.\\.)*/?$`,
          message: `${pkg}/src/${folder}/ may not import ${names ? `${names} or ` : ''}the package index (folder layers: docs/architecture.md).`,
        },
      ]);
    }
  });
  return out;
}

/** The folder and leaf rules of one package, as `layer()` configs with its package rules. */
function folderLayers(pkg, forbidden, message) {
  const src = `packages/${pkg}/src`;
  return [
    ...[...folderPatterns(pkg)].map(([folder, patterns]) =>
      layer([`${src}/${folder}/**`], forbidden, message, { patterns }),
    ),
    ...FOLDER_LAYERS[pkg].leaves.map((leaf) =>
      layer([`${src}/${leaf}`], forbidden, message, { patterns: leafPatterns(pkg, leaf) }),
    ),
  ];
}

/** A leaf's rule: no relative import at all. */
function leafPatterns(pkg, leaf) {
  return [{ regex: '^\\.', message: `${pkg}/src/${leaf} is a leaf: it imports nothing of its package.` }];
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
      // zod as a namespace: a bundler keeps only the parts used; a named `z` keeps all of zod
      // (its locales included) in an esbuild bundle.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z']",
          message: "Import zod as a namespace: import * as z from 'zod'.",
        },
      ],
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
  ...folderLayers(
    'context',
    [...ws('store', 'agent', 'fake-llm'), ...NODE_IO],
    'context is pure: no I/O, only protocol.',
  ),
  // The work pool (pool/pool.ts) starts worker threads: it looks for the worker file and sizes
  // itself to the machine's parallelism.
  layer(['packages/context/src/pool/pool.ts'], ws('store', 'agent', 'fake-llm'), 'context depends only on protocol.', {
    patterns: folderPatterns('context').get('pool'),
  }),
  layer(
    ['packages/context/src/cli/**', 'packages/context/bench/**', 'packages/context/src/**/__tests__/**'],
    ws('store', 'agent', 'fake-llm'),
    'context depends only on protocol.',
  ),
  layer(['packages/store/**'], ws('context', 'agent', 'fake-llm'), 'store depends only on protocol.'),
  layer(['packages/agent/src/**'], ws('fake-llm'), 'agent never depends on test servers outside its tests.'),
  ...folderLayers('agent', ws('fake-llm'), 'agent never depends on test servers outside its tests.'),
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
  // Where a route call lives (docs/architecture.md): in the renderer's store/ only, a slice action
  // when the store keeps the answer, store/routes.ts otherwise. Components, hooks and lib/ call
  // those and never the transport's `call` or the bridge's `invoke`.
  layer(
    ['apps/desktop/src/renderer/src/{components,hooks,lib}/**'],
    [...ws('context', 'store', 'agent', 'fake-llm'), 'electron', ...NODE_IO, 'path', 'node:path'],
    'the renderer depends on protocol only: never Node, never electron, never the runtime.',
    { patterns: [{ group: ['**/transport', '**/transport/index'], importNames: ['call'], message: ROUTE_RULE }] },
  ),
  {
    files: ['apps/desktop/src/renderer/src/{components,hooks,lib}/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.property.name='invoke']", message: ROUTE_RULE },
        {
          selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z']",
          message: "Import zod as a namespace: import * as z from 'zod'.",
        },
      ],
    },
  },
  {
    files: ['apps/desktop/src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
