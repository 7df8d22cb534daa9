// The user's login environment is read once, outside the sandbox; every command runs through a
// plain `bash -c` with it: a fake home with a fake, noisy profile (never the machine's real one).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loginEnv } from '../process/loginEnv';
import { lastIsTool, startHarness, type Harness } from './harness';

let h: Harness | null = null;
const made: string[] = [];
afterEach(async () => {
  await h?.close();
  h = null;
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A home whose login profile puts a toolchain on PATH, prints noise and counts its runs. */
function fakeHome(): string {
  const home = mkdtempSync(path.join(tmpdir(), 'tl-login-home-'));
  made.push(home);
  const bin = path.join(home, '.fake-toolchain', 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(path.join(bin, 'faketool'), '#!/bin/sh\necho "faketool from the login PATH"\n');
  chmodSync(path.join(bin, 'faketool'), 0o755);
  writeFileSync(
    path.join(home, '.bash_profile'),
    [
      'echo run >> "$HOME/profile-runs"',
      'echo "pyenv: cannot rehash: $HOME/.pyenv/shims isn\'t writable" >&2',
      'echo "welcome noise on stdout"',
      'export PATH="$HOME/.fake-toolchain/bin:$PATH"',
      'export FAKE_TOOLCHAIN_ROOT="$HOME/.fake-toolchain"',
      '',
    ].join('\n'),
  );
  return home;
}

describe('the login environment', () => {
  it('is read from the login shell once: PATH and variables from the profile, none of its noise', async () => {
    const home = fakeHome();
    const got = await loginEnv({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }, shell: '/bin/bash' });
    expect(got.failed).toBeNull();
    expect(got.env.PATH).toContain(path.join(home, '.fake-toolchain', 'bin'));
    expect(got.env.FAKE_TOOLCHAIN_ROOT).toBe(path.join(home, '.fake-toolchain'));
    expect(Object.values(got.env).join('\n')).not.toMatch(/welcome noise|cannot rehash/);
    // Cached: asking again runs no shell.
    await loginEnv({ env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }, shell: '/bin/bash' });
    expect(readFileSync(path.join(home, 'profile-runs'), 'utf8')).toBe('run\n');
  });

  it('a shell that does not answer in time leaves the environment as it was, and says why', async () => {
    const home = fakeHome();
    writeFileSync(path.join(home, '.bash_profile'), 'read -r never < /dev/zero; while :; do :; done\n');
    const got = await loginEnv({ env: { PATH: '/usr/bin:/bin', HOME: home }, shell: '/bin/bash', timeoutMs: 300 });
    expect(got.failed).toMatch(/more than/);
    expect(got.env.HOME).toBe(home);
  });

  it('commands of a session run with it through bash -c: the toolchain is found, the profile ran once, no noise in results', async () => {
    const home = fakeHome();
    let calls = 0;
    h = await startHarness({
      api: { homeDir: home, loginShell: true },
      llm: {
        defaultReply: (req) =>
          lastIsTool(req) && calls >= 3
            ? { content: 'done' }
            : {
                toolCalls: [
                  { name: 'shell', arguments: { command: `faketool; echo "root=$FAKE_TOOLCHAIN_ROOT" # ${++calls}` } },
                ],
              },
      },
    });
    await h.turn('run the tool three times');
    const results = h
      .history()
      .filter((m) => m.role === 'tool')
      .map((m) => m.content ?? '');
    expect(results).toHaveLength(3);
    for (const r of results) {
      expect(r).toMatch(/faketool from the login PATH/);
      expect(r).toContain(`root=${path.join(home, '.fake-toolchain')}`);
      expect(r).not.toMatch(/welcome noise|cannot rehash/);
    }
    expect(readFileSync(path.join(home, 'profile-runs'), 'utf8')).toBe('run\n');
  });
});
