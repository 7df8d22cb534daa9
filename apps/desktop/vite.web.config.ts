import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { rendererBuild } from './rendererBuild.ts';
import { bundleReport } from './bundleReport.ts';

// Browser mode: the same renderer, built as static files that apps/server serves.
export default defineConfig({
  root: resolve(import.meta.dirname, 'src/renderer'),
  base: './',
  plugins: [react(), bundleReport('renderer (browser mode)')],
  build: { ...rendererBuild, outDir: resolve(import.meta.dirname, 'out/web'), emptyOutDir: true },
});
