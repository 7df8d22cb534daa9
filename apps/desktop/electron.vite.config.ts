import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { rendererBuild } from './rendererBuild.ts';
import { bundleReport } from './bundleReport.ts';

// Workspace packages are TypeScript source: bundle them (exclude from externalization);
// better-sqlite3 stays external (native module, loaded from node_modules at run time).
const workspace = ['@threadline/agent', '@threadline/protocol', '@threadline/context', '@threadline/store'];

export default defineConfig({
  main: {
    build: {
      externalizeDeps: { exclude: workspace },
      rolldownOptions: {
        // Workers are entries of their own, found at run time beside the code that starts them:
        // the work pool's (packages/context/src/pool/pool.ts, out/main/contextWorker.js), the
        // search worker of grep and glob and the one that reads attached PDFs and large text
        // files (packages/agent/src/worker/run.ts looks for `<name>.js` beside the bundle, else
        // the source's `<name>.ts`). Shared chunks stay in out/main too, so that code is where
        // it looks.
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          contextWorker: resolve(__dirname, '../../packages/context/src/worker/entry.ts'),
          extractWorker: resolve(__dirname, '../../packages/agent/src/attachments/extractWorker.ts'),
          searchWorker: resolve(__dirname, '../../packages/agent/src/tools/searchWorker.ts'),
        },
        output: {
          entryFileNames: '[name].js',
          chunkFileNames: '[name]-[hash].js',
        },
      },
    },
  },
  preload: {
    plugins: [bundleReport('preload')],
    build: {
      // A sandboxed preload cannot require() anything but electron: bundle everything it uses
      // (protocol's zod-free `bridge` entry) into one CommonJS file.
      externalizeDeps: { exclude: workspace },
      rolldownOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      ...rendererBuild,
      rolldownOptions: {
        ...rendererBuild.rolldownOptions,
        input: { index: resolve(__dirname, 'src/renderer/index.html') },
      },
    },
    plugins: [react(), bundleReport('renderer')],
  },
});
