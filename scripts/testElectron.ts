// `pnpm test:electron`: where Electron's binary is present, builds the desktop app and runs the
// main-process smoke (e2e/electron/smoke-main.mjs) and the e2e `electron` project. Without a
// binary it says so in one line and succeeds, so `pnpm test` stays green on machines like CI.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { findElectronBinary, repoRoot } from './electronBinary';

const binary = findElectronBinary();
if (!binary.ok) {
  console.log(`test:electron: SKIPPED, no Electron binary (${binary.reason}); \`pnpm start\` says how to get one.`);
  process.exit(0);
}

const steps: [string, string[]][] = [
  ['pnpm', ['--filter', '@threadline/desktop', 'build']],
  [process.execPath, [join(repoRoot, 'e2e/electron/smoke-main.mjs')]],
  ['pnpm', ['exec', 'playwright', 'test', '-c', 'e2e/playwright.config.ts', '--project=electron']],
];
for (const [cmd, args] of steps) {
  const r = spawnSync(cmd, args, { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`test:electron: failed: ${[cmd, ...args].join(' ')}`);
    process.exit(r.status ?? 1);
  }
}
console.log(`test:electron: passed with ${binary.value}`);
