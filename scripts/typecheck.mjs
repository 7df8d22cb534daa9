// Type-checks every workspace project (each package's own tsconfig; main/preload against
// Electron's types, the renderer against the DOM). Fails on the first error.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const projects = [
  'packages/protocol/tsconfig.json',
  'packages/context/tsconfig.json',
  'packages/store/tsconfig.json',
  'packages/fake-llm/tsconfig.json',
  'packages/agent/tsconfig.json',
  'apps/server/tsconfig.json',
  'apps/desktop/tsconfig.node.json',
  'apps/desktop/tsconfig.web.json',
  'e2e/tsconfig.json',
];
let failed = 0;
for (const p of projects) {
  if (!existsSync(p)) continue;
  const started = Date.now();
  try {
    execFileSync('node', ['node_modules/typescript/bin/tsc', '--noEmit', '-p', p], { stdio: 'inherit' });
    console.log(`typecheck ok   ${p} (${Date.now() - started} ms)`);
  } catch {
    console.error(`typecheck FAIL ${p}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
