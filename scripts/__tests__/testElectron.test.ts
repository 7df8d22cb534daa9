import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// `pnpm test:electron` where there is no Electron binary (ELECTRON_OVERRIDE_DIST_PATH points at
// an empty folder, so this holds on any machine): it says it skipped, and succeeds.
const root = resolve(import.meta.dirname, '../..');

describe('pnpm test:electron without a binary', () => {
  it('prints one SKIPPED line with the reason and exits 0', () => {
    const empty = mkdtempSync(join(tmpdir(), 'tl-no-electron-'));
    try {
      const out = execFileSync(join(root, 'node_modules/.bin/tsx'), ['scripts/testElectron.ts'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: empty },
      });
      expect(out.trim().split('\n')).toEqual([
        `test:electron: SKIPPED, no Electron binary (${join(empty, 'electron')} is missing or not executable); \`pnpm start\` says how to get one.`,
      ]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
