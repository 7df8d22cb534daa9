// Issue 34 item 2: no sandboxed command leaves git state that makes a later `git` run a program.
// The runtime runs as an unprivileged user (fixtures/userRuntime.ts), commands in a real bwrap,
// every card denied; afterwards the user's own `git status` runs outside any sandbox, and the
// attacker's program (evil.sh, planted in the folder) would leave a marker file. Each attack is
// also run bare, outside the sandbox, on a copy: there the marker appears, so the attack is real.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxStatus } from '@threadline/protocol';
import { startUserRuntime, type UserRuntime } from './fixtures/userRuntime';

let rt: UserRuntime;
let noSandbox: string | null = null;

beforeAll(async () => {
  rt = await startUserRuntime();
  const status = await rt.call<SandboxStatus>('sandbox.status', {});
  if (status.kind !== 'bwrap') noSandbox = `no bwrap sandbox for the test user (${status.reason ?? '?'})`;
  if (noSandbox) console.warn(`skipping the git surface tests: ${noSandbox}`);
}, 120_000);
afterAll(async () => rt?.close());
beforeEach((ctx) => {
  if (noSandbox) ctx.skip();
});

const sh = (command: string) => ({ name: 'shell', arguments: { command } });
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A shell line run as the user in `folder`, outside any sandbox; throws when it fails. */
function asUser(folder: string, line: string): string {
  const r = rt.run(folder, 'bash', ['-c', line]);
  if (r.status !== 0) throw new Error(`${line}: ${r.out}`);
  return r.out;
}

/** The attacker's program: leaves `marker` when anything runs it. */
const plantEvil = (marker: string) => `printf '#!/bin/sh\\ntouch ${marker}\\nexit 1\\n' > evil.sh && chmod +x evil.sh`;

const REPO = 'git init -q && echo hello > a.txt && git add a.txt && git commit -qm first';

interface Attack {
  /** Prepares the folder (as the user, before the turn). */
  setup: string;
  /** The model's command; `$M` is the marker, `$EVIL` the attacker's program. */
  command: string;
  /** What the user runs afterwards (default `git status`), in `at` (default the folder). */
  then?: string;
  at?: string;
}

/** The attack sandboxed (its tool results and held files), then the same outside the sandbox on a copy. */
async function attack(name: string, a: Attack) {
  const line = (folder: string, marker: string) =>
    `${plantEvil(marker)}; EVIL=${q(path.join(folder, 'evil.sh'))}; M=${q(marker)}; ${a.command}`;
  const s = await rt.session(name);
  asUser(s.folder, a.setup);
  const inside = path.join(rt.dir, `PWNED-${name}`);
  const results = await rt.turn(s.sessionId, [sh(line(s.folder, inside))]);
  const then = a.then ?? 'git status';
  rt.run(path.join(s.folder, a.at ?? ''), 'bash', ['-c', then]);
  const control = await rt.session(`${name}-bare`);
  asUser(control.folder, a.setup);
  const outside = path.join(rt.dir, `PWNED-${name}-bare`);
  rt.run(control.folder, 'bash', ['-c', line(control.folder, outside)]);
  rt.run(path.join(control.folder, a.at ?? ''), 'bash', ['-c', then]);
  return {
    ran: existsSync(inside),
    ranBare: existsSync(outside),
    results,
    held: (await rt.held(s.sessionId)).map((f) => [f.path, f.reason]),
    folder: s.folder,
  };
}

describe("git's execution surface, as an unprivileged user, with a real bwrap", () => {
  it('a .git renamed away and rebuilt with core.fsmonitor: the rename is refused', async () => {
    const r = await attack('rename', {
      setup: REPO,
      command:
        'mv .git .git-old; cp -r .git-old .git-new 2>/dev/null || cp -r .git .git-new; git --git-dir=.git-new config core.fsmonitor "$EVIL"; mv .git-new .git',
    });
    expect(r.ranBare).toBe(true);
    expect(r.ran).toBe(false);
    expect(r.results[0]).toMatch(/Device or resource busy/);
    expect(asUser(r.folder, 'git log --oneline')).toMatch(/first/);
  });

  it('.git/commondir pointing at an evil copy is held', async () => {
    const r = await attack('commondir', {
      setup: REPO,
      command:
        'cp -r .git evil && git --git-dir=evil config core.fsmonitor "$EVIL" && echo "$PWD/evil" > .git/commondir',
    });
    expect(r.ranBare).toBe(true);
    expect(r.ran).toBe(false);
    expect(r.held).toEqual([['.git/commondir', 'git']]);
    expect(r.results[0]).toMatch(/\[held\].*\.git\/commondir/);
  });

  it('.git replaced by a `gitdir:` file: refused', async () => {
    const r = await attack('gitdir', {
      setup: REPO,
      command:
        'cp -r .git evil && git --git-dir=evil config core.fsmonitor "$EVIL"; mv .git old; rm -rf .git; printf "gitdir: evil\\n" > .git',
    });
    expect(r.ranBare).toBe(true);
    expect(r.ran).toBe(false);
  });

  it("a submodule's .git/modules/<name>/config: read-only, the superproject's git status runs nothing", async () => {
    const setup = `src="$PWD-src" && mkdir "$src" && (cd "$src" && ${REPO}) && ${REPO} && git -c protocol.file.allow=always submodule add -q "$src" sub && git commit -qm sub`;
    const r = await attack('submodule', {
      setup,
      command: 'printf "[core]\\n\\tfsmonitor = %s\\n" "$EVIL" >> .git/modules/sub/config',
    });
    expect(r.ranBare).toBe(true);
    expect(r.ran).toBe(false);
    expect(r.results[0]).toMatch(/Read-only file system|Device or resource busy/);
  });

  it('a nested repository made by the command (tools/vendored/.git) keeps no fsmonitor', async () => {
    const r = await attack('nested', {
      setup: 'true',
      command:
        'mkdir -p tools/vendored && cd tools/vendored && git init -q && git config core.fsmonitor "$EVIL" && echo x > f',
      at: 'tools/vendored',
    });
    expect(r.ranBare).toBe(true);
    expect(r.ran).toBe(false);
    expect(r.held).toEqual([['tools/vendored/.git/config', 'git']]);
  });

  it('git init, then extensions.worktreeConfig and .git/config.worktree: both held', async () => {
    const r = await attack('worktreeconfig', {
      setup: 'true',
      command:
        'git init -q && git config extensions.worktreeConfig true && printf "[core]\\n\\tfsmonitor = %s\\n" "$EVIL" > .git/config.worktree',
    });
    expect(r.ranBare).toBe(true);
    expect(r.ran).toBe(false);
    expect(r.held).toEqual([
      ['.git/config', 'git'],
      ['.git/config.worktree', 'git'],
    ]);
  });

  it('git init, then commondir: held', async () => {
    const r = await attack('init-commondir', {
      setup: 'true',
      command:
        'git init -q && cp -r .git evil && git --git-dir=evil config core.fsmonitor "$EVIL" && echo "$PWD/evil" > .git/commondir',
    });
    expect(r.ranBare).toBe(true);
    expect(r.ran).toBe(false);
    expect(r.held).toEqual([['.git/commondir', 'git']]);
  });

  it('a hook, an include and info/attributes of the repository: refused or held', async () => {
    const hook = await attack('hook', {
      setup: REPO,
      command: 'cp evil.sh .git/hooks/pre-commit; echo changed >> a.txt',
      then: 'git commit -qam again',
    });
    expect(hook.ranBare).toBe(true);
    expect(hook.ran).toBe(false);
    const include = await attack('include', {
      setup: 'true',
      command:
        'printf "[core]\\n\\tfsmonitor = %s\\n" "$EVIL" > evil.cfg && git init -q && git config include.path "$PWD/evil.cfg"',
    });
    expect(include.ranBare).toBe(true);
    expect(include.ran).toBe(false);
    expect(include.held).toEqual([['.git/config', 'git']]);
    // A filter driver: info/attributes names it, the config gives its program (git add runs it).
    const attributes = await attack('attributes', {
      setup: 'true',
      command:
        'git init -q && printf "* filter=x\\n" > .git/info/attributes && git config filter.x.clean "$EVIL" && echo data > f',
      then: 'git add f',
    });
    expect(attributes.ranBare).toBe(true);
    expect(attributes.ran).toBe(false);
    expect(attributes.held).toEqual([
      ['.git/config', 'git'],
      ['.git/info/attributes', 'git'],
    ]);
    // In a repository that was there before, info/ is read-only.
    const existing = await attack('attributes-existing', {
      setup: REPO,
      command: 'printf "* filter=x\\n" > .git/info/attributes; echo data > f',
      then: 'git add f',
    });
    expect(existing.results[0]).toMatch(/Read-only file system/);
    expect(existing.held).toEqual([]);
  });

  it('a worktree checkout (its .git a file): the file cannot be replaced', async () => {
    const r = await attack('worktree', {
      setup: `mkdir main && cd main && ${REPO} && git worktree add -q ../wt && cd .. && mv wt/* wt/.git . && rmdir wt && git -C main worktree repair "$PWD" >/dev/null 2>&1 || true`,
      command:
        'cp -r main/.git evil && git --git-dir=evil config core.fsmonitor "$EVIL"; printf "gitdir: %s\\n" "$PWD/evil" > .git',
    });
    expect(r.ranBare).toBe(true);
    expect(r.ran).toBe(false);
  });

  it('everyday git works in the sandbox with no card and nothing held; git config is refused plainly', async () => {
    const s = await rt.session('everyday');
    asUser(s.folder, REPO);
    const [work] = await rt.turn(s.sessionId, [
      sh(
        'git status --short && echo more >> a.txt && git add a.txt && git commit -qm second && git branch feature && echo wip >> a.txt && git stash -q && git checkout -q feature && git stash pop -q && git diff --stat && git log --oneline && echo EVERYDAY-OK',
      ),
    ]);
    expect(work).toMatch(/EVERYDAY-OK/);
    expect(work).toMatch(/exit code: 0/);
    expect(await rt.held(s.sessionId)).toEqual([]);
    expect(rt.events.some((e) => e.type === 'tool.requested' && e.sessionId === s.sessionId && e.needsApproval)).toBe(
      false,
    );
    expect(asUser(s.folder, 'git log --oneline')).toMatch(/second/);
    const [refused] = await rt.turn(s.sessionId, [sh('git config user.name Mallory && git remote add up https://x')]);
    expect(refused).not.toMatch(/exit code: 0/);
    expect(refused).toMatch(/\[sandbox\].*config.*"sandbox": false/s);
  });
});
