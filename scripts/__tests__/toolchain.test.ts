import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

function inBash(script: string, env: Record<string, string> = { THREADLINE_SKIP_CHROMIUM: '1' }): string {
  return execFileSync('bash', ['--norc', '--noprofile', '-c', script], {
    cwd: root,
    encoding: 'utf8',
    env: {
      PATH: `${temp}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: temp,
      ELECTRON_MIRROR: 'http://127.0.0.1:9/',
      ...env,
    },
  });
}

/**
 * A stand-in for apt-get in its own folder (first on PATH, with a sudo that just runs the
 * command): it logs each call, and fails the first `lockedCalls` of them the way apt does while
 * another package manager holds its lock; afterwards it exits with `then` (stderr `thenSays`).
 */
function fakeApt(lockedCalls: number, then: number, thenSays = ''): { dir: string; log: string } {
  const dir = mkdtempSync(join(temp, 'apt-'));
  const log = join(dir, 'calls.log');
  writeFileSync(
    join(dir, 'apt-get'),
    `#!/bin/sh
echo "$*" >> ${log}
n=$(wc -l < ${log})
if [ "$n" -le ${lockedCalls} ]; then
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
  echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
  exit 100
fi
[ -n "${thenSays}" ] && echo "${thenSays}" >&2
exit ${then}
`,
  );
  writeFileSync(join(dir, 'sudo'), '#!/bin/sh\nexec "$@"\n');
  for (const f of ['apt-get', 'sudo']) chmodSync(join(dir, f), 0o755);
  return { dir, log };
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

  it('waits while another package manager holds the lock, says so once, then installs', () => {
    const apt = fakeApt(2, 0);
    const out = inBash(`PATH=${apt.dir}:$PATH; source scripts/toolchain.sh 2>&1; echo "rc=$?"`, {
      THREADLINE_CHROMIUM: join(temp, 'no-chromium'),
      THREADLINE_SKIP_BWRAP: '1',
    });
    expect(out).toContain('toolchain: installing chromium');
    const waits = out.split('\n').filter((l) => l.includes('waiting for another package manager'));
    expect(waits).toEqual([
      'toolchain: waiting for another package manager to finish (held by process 4242 (apt-get)); up to 600 s…',
    ]);
    const calls = readFileSync(apt.log, 'utf8').trim().split('\n');
    expect(calls.slice(0, 3)).toEqual(['update -qq', 'update -qq', 'update -qq']);
    expect(calls[3]).toMatch(/^install -y -qq chromium/);
    expect(out).not.toContain('could not be installed');
    expect(out).toContain('rc=0');
  });

  it('a Debian package that cannot be installed is a warning: pnpm is on PATH for the commands typed next', () => {
    const apt = fakeApt(0, 100, 'E: Unable to locate package chromium');
    const out = inBash(
      `PATH=${apt.dir}:$PATH; source scripts/toolchain.sh 2>&1 && pnpm install 2>&1; echo "rc=$?"; pnpm -v 2>&1`,
      { THREADLINE_CHROMIUM: join(temp, 'no-chromium'), THREADLINE_SKIP_BWRAP: '1' },
    );
    expect(out).toContain('E: Unable to locate package chromium');
    expect(out).toMatch(/the Debian packages above could not be installed .*Node and pnpm are ready/);
    expect(out).not.toMatch(/command not found/);
    expect(out.trim().split('\n').slice(-2)).toEqual(['rc=0', '10.99.0']);
  });

  it('gives up on a lock held too long, with a sentence, and still leaves pnpm on PATH', () => {
    const apt = fakeApt(1000, 0);
    const out = inBash(`PATH=${apt.dir}:$PATH; source scripts/toolchain.sh 2>&1; pnpm -v 2>&1`, {
      THREADLINE_CHROMIUM: join(temp, 'no-chromium'),
      THREADLINE_SKIP_BWRAP: '1',
      THREADLINE_APT_WAIT: '0',
    });
    expect(out).toContain('another package manager still holds the lock after 0 s; giving up');
    expect(out).not.toMatch(/command not found/);
    expect(out.trim().split('\n').at(-1)).toBe('10.99.0');
  });
});
