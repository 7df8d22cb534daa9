import { defineConfig } from 'vitest/config';

// One run, two environments: Node for packages, the server and Electron's main process;
// jsdom for renderer components.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: [
            'packages/*/src/**/__tests__/**/*.test.ts',
            'apps/server/src/**/__tests__/**/*.test.ts',
            'apps/desktop/src/main/**/__tests__/**/*.test.ts',
            'apps/desktop/src/preload/**/__tests__/**/*.test.ts',
            'apps/desktop/__tests__/*.test.ts',
            'scripts/__tests__/**/*.test.ts',
          ],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['apps/desktop/src/renderer/**/__tests__/**/*.test.{ts,tsx}'],
          testTimeout: 20_000,
        },
      },
    ],
  },
});
