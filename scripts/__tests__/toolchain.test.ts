import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

// `source scripts/toolchain.sh` in a real bash, as a user would in their terminal: afterwards the
// shell's options, functions and variables are what they were, except PATH and Electron's skip
// variable. Node 22 is this test's own; pnpm is a stub that only answers `-v`, Chromium and apt
// are skipped (THREADLINE_SKIP_CHROMIUM), Electron's "download host" is a closed local port:
// nothing is installed and nothing leaves the machine.
const root = resolve(import.meta.dirname, '../..');
const temp = mkdtempSync(join(tmpdir(), 'tl-toolchain-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
writeFileSync(join(temp, 'pnpm'), '#!/bin/sh\necho 10.99.0\n');
chmodSync(join(temp, 'pnpm'), 0o755);

const snapshot = `{ set -o; shopt -p; declare -F; compgen -v | grep -vxE 'BASH_.*|FUNCNAME|PIPESTATUS|_|LINENO|RANDOM|SECONDS|EPOCH.*|SRANDOM|COMP_.*|PATH|ELECTRON_SKIP_BINARY_DOWNLOAD|OLDPWD'; }`;

function inBash(script: string): string {
  return execFileSync('bash', ['--norc', '--noprofile', '-c', script], {
    cwd: root,
    encoding: 'utf8',
    env: {
      PATH: `${temp}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: temp,
      THREADLINE_SKIP_CHROMIUM: '1',
      ELECTRON_MIRROR: 'http://127.0.0.1:9/',
    },
  });
}

describe('source scripts/toolchain.sh', () => {
  it('leaves the shell as it was, apart from PATH and ELECTRON_SKIP_BINARY_DOWNLOAD', () => {
    const [before, after] = [join(temp, 'before.txt'), join(temp, 'after.txt')];
    const out = inBash(
      `${snapshot} > ${before}; source scripts/toolchain.sh >/dev/null; ${snapshot} > ${after}; ` +
        `diff ${before} ${after} && echo SAME; false; echo "still here, skip=$ELECTRON_SKIP_BINARY_DOWNLOAD"`,
    );
    expect(out).toContain('SAME');
    expect(out).toContain('still here, skip=1');
  });

  it('strict options set before it stay set (e.g. in .ci/run)', () => {
    const out = inBash(
      `set -euo pipefail; source scripts/toolchain.sh >/dev/null; set -o | grep -E '^(errexit|nounset|pipefail)\\s'`,
    );
    expect(
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(/\s+/).join(' ')),
    ).toEqual(['errexit on', 'nounset on', 'pipefail on']);
  });

  it('puts a Node >= 22.12 first on PATH and says which tools it found', () => {
    const out = inBash(`source scripts/toolchain.sh; node -e 'console.log("node", process.versions.node)'`);
    expect(out).toMatch(/toolchain: node v22\.|toolchain: node v2[3-9]\./);
    expect(out).toMatch(/pnpm 10\.99\.0/);
  });
});
