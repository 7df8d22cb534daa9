import { defineConfig } from '@playwright/test';

// Browser project: the real renderer served by browser mode (apps/server) in Debian's Chromium.
// Electron project: the same skeleton spec through Playwright's _electron when an Electron binary
// is present; otherwise each of its tests reports itself skipped with the reason.
const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export default defineConfig({
  testDir: './specs',
  outputDir: '../test-results',
  timeout: 90_000,
  expect: { timeout: 15_000 },
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: process.env.THREADLINE_CHROMIUM ?? '/usr/bin/chromium', args: chromiumArgs },
    viewport: { width: 1360, height: 860 },
    trace: 'off',
  },
  projects: [
    { name: 'browser', testIgnore: /\.electron\.spec\.ts$/ },
    { name: 'electron', testMatch: /skeleton\.spec\.ts$/, use: { shellKind: 'electron' } as Record<string, unknown> },
  ],
});
