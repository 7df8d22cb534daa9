// Real work still runs in the sandbox without a card: an ordinary developer session (a Python
// virtualenv and a local package installed into it, npm init and a script, everyday git, a C
// compiler, the project's tests) by an unprivileged user whose login profile is slow to say
// nothing and noisy, against the real server. No card may come, and no profile noise may reach
// the model.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '@threadline/agent';
import { testUser } from '@threadline/fake-llm/testUser';
import { scriptedShell, startUserServer, userBase, type UserServer } from './userServer';

const sandbox = await detectSandbox('linux');
const missing = ['/usr/bin/python3', '/usr/bin/gcc', '/usr/bin/git', '/usr/bin/npm'].filter((p) => !existsSync(p));
// pytest from Debian (python3-pytest, scripts/toolchain.sh), seen by the virtualenv through its system site-packages.
if (spawnSync('/usr/bin/python3', ['-c', 'import pytest']).status !== 0) missing.push('pytest (python3-pytest)');
const SKIP =
  sandbox.kind !== 'bwrap'
    ? `no usable bwrap here (${sandbox.reason ?? '?'})`
    : missing.length > 0
      ? `missing ${missing.join(', ')}`
      : null;
if (SKIP) console.warn(`skipping the sandboxed developer session: ${SKIP}`);

let server: UserServer | null = null;
let base = '';
afterAll(async () => {
  await server?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe.skipIf(SKIP !== null)('an ordinary developer session in the sandbox, as an unprivileged user', () => {
  let results: string[] = [];
  let cards = 0;

  beforeAll(async () => {
    const user = testUser();
    base = userBase(user, 'tl-work');
    const home = path.join(base, 'home');
    const folder = path.join(home, 'project');
    const pkg = path.join(folder, 'localpkg');
    mkdirSync(path.join(pkg, 'localpkg'), { recursive: true });
    writeFileSync(path.join(pkg, 'localpkg', '__init__.py'), 'def hello():\n    return "hello from localpkg"\n');
    writeFileSync(
      path.join(pkg, 'setup.py'),
      'from setuptools import setup\nsetup(name="localpkg", version="0.1", packages=["localpkg"])\n',
    );
    writeFileSync(
      path.join(folder, 'test_math.py'),
      'import unittest\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n',
    );
    writeFileSync(path.join(folder, 'README.md'), 'a project\n');
    writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Dev User\n\temail = dev@example.com\n');
    // The profile that printed into every result before: noise on both streams.
    writeFileSync(
      path.join(home, '.bash_profile'),
      'echo "pyenv: cannot rehash: $HOME/.pyenv/shims isn\'t writable" >&2\necho "Welcome back"\n',
    );
    user.own(base);
    const py = '.venv/bin/python';
    server = await startUserServer({
      home,
      dataDir: path.join(home, '.local', 'share', 'threadline'),
      reply: scriptedShell([
        {
          command: `/usr/bin/python3 -m venv --system-site-packages .venv && ${py} -m pip install -q --no-index --no-build-isolation ./localpkg && ${py} -c "import localpkg; print(localpkg.hello())"`,
        },
        { command: `${py} -m pytest -q` },
        {
          command: `mkdir -p web && cd web && npm init -y >/dev/null && npm pkg set scripts.hello="node -e \\"console.log('hello from npm')\\"" && npm run -s hello`,
        },
        {
          command:
            'git init -q -b main && git add README.md test_math.py && git commit -qm init && git branch feature && echo more >> README.md && git stash -q && git checkout -q feature && git stash pop -q && git commit -qam change && git log --oneline | wc -l && git branch --show-current',
        },
        {
          command: `printf '#include <stdio.h>\\nint main(void){puts("compiled and ran");return 0;}\\n' > hello.c && gcc hello.c -o hello && ./hello`,
        },
      ]),
    });
    const session = await server.rpc<{ id: string }>('sessions.create', { title: 'work', workingFolder: folder });
    ({ denied: cards } = await server.turnDenyingCards(session.id, 'set the project up'));
    results = await server.toolResults(session.id);
  }, 300_000);

  it('asked nothing: every command ran in the sandbox', () => {
    expect(cards).toBe(0);
    expect(results).toHaveLength(5);
  });

  it('a virtualenv, a local package installed into it, and the tests run', () => {
    expect(results[0]).toMatch(/hello from localpkg\nexit code: 0/);
    expect(results[1]).toMatch(/1 passed.*\nexit code: 0/);
  });

  it('npm init and a package script', () => {
    expect(results[2]).toMatch(/hello from npm/);
  });

  it('git add, commit, branch, stash, checkout', () => {
    expect(results[3]).toMatch(/^2\nfeature\nexit code: 0/);
  });

  it('a compiler', () => {
    expect(results[4]).toMatch(/compiled and ran\nexit code: 0/);
  });

  it('no login-profile noise in any result, and no sandbox hint where nothing was refused', () => {
    for (const r of results) {
      expect(r).not.toMatch(/cannot rehash|Welcome back/);
      expect(r).not.toMatch(/\[sandbox\]/);
    }
  });
});
