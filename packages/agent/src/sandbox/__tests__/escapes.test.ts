// Escape cases of the sandboxes users trust, ported to Threadline's (each names its source), run
// with the real bwrap and seccomp helper as an unprivileged user, in the configuration commands
// get: the home folder replaced, the socket places emptied, the folder's protected paths read-only.
//   Codex: codex-rs/linux-sandbox/tests/suite/landlock.rs
//   sandbox-runtime: test/sandbox/seccomp-filter.test.ts, test/sandbox/integration.test.ts,
//   test/sandbox/linux-nested-userns.test.ts
import { spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testUser } from '@threadline/fake-llm/testUser';
import { detectSandbox, sandboxReadOnlyPaths, socketPlaces, wrapCommand, type SandboxInfo } from '../index';

const found = await detectSandbox('linux');
const SKIP = found.kind !== 'bwrap' ? `no usable bwrap (${found.reason ?? '?'})` : null;
if (SKIP) console.warn(`skipping the ported escape cases: ${SKIP}`);

const user = testUser();
// bwrap run by the user: no capability to keep (the detection ran as this process's user).
const sandbox: SandboxInfo = { ...found, caps: user.switched ? ['--cap-drop', 'ALL'] : (found.caps ?? []) };
const BASE = path.resolve(import.meta.dirname, '../../../node_modules/.cache');
let root = '';
let folder = '';
let home = '';
let sessionHome = '';
let outside = '';

beforeAll(() => {
  mkdirSync(BASE, { recursive: true });
  root = mkdtempSync(path.join(BASE, 'tl-escapes-'));
  folder = path.join(root, 'home', 'work');
  home = path.join(root, 'home');
  sessionHome = path.join(root, 'session-home');
  outside = path.join(root, 'outside');
  for (const d of [folder, sessionHome, outside, path.join(folder, '.git'), path.join(folder, 'decoy')])
    mkdirSync(d, { recursive: true });
  writeFileSync(path.join(folder, '.git', 'config'), '[core]\n\tbare = false\n');
  // A protected folder replaced by a link to a decoy (Codex: .codex -> decoy-codex).
  symlinkSync(path.join(folder, 'decoy'), path.join(folder, '.vscode'));
  // One that leads out, into the (hidden) home: protecting it must not bring the home back into view.
  mkdirSync(path.join(home, 'private'));
  writeFileSync(path.join(home, 'private', 'notes.txt'), 'private-notes-4d2e\n');
  symlinkSync(path.join(home, 'private'), path.join(folder, '.idea'));
  user.own(root);
  user.reach(root);
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  out: string;
}

/** `cmd` in the sandbox as commands get it, run by the unprivileged user. */
function inSandbox(cmd: string): Promise<Ran> {
  const sockets = socketPlaces(tmpdir(), undefined);
  const w = wrapCommand(sandbox, {
    command: 'bash',
    args: ['-c', cmd],
    cwd: folder,
    folder,
    tmpDir: null,
    readOnlyInside: sandboxReadOnlyPaths(folder),
    hidden: sockets.files,
    network: false,
    socketPlaces: sockets.dirs,
    home: { path: home, sessionHome, readOnly: [], gitConfig: null },
  });
  const a = user.argv(w.command, w.args);
  return new Promise((resolve) => {
    const child = spawn(a.command, a.args, {
      cwd: folder,
      env: { ...user.env({ PATH: '/usr/local/bin:/usr/bin:/bin' }, home), ...w.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

const has = (p: string) => existsSync(p);

describe.skipIf(SKIP !== null)('escape cases ported from Codex linux-sandbox (landlock.rs)', () => {
  it('test_root_read: reads of the system work', async () => {
    expect((await inSandbox('ls -l /bin >/dev/null && echo read')).out).toMatch(/^read$/m);
  });

  it('test_root_write: a write outside the writable roots fails', async () => {
    const target = path.join(outside, 'blah');
    const r = await inSandbox(`echo blah > ${target}`);
    expect(r.code).not.toBe(0);
    expect(has(target)).toBe(false);
  });

  it('test_dev_null_write and test_writable_root: /dev/null and the working folder are writable', async () => {
    const r = await inSandbox('echo blah > /dev/null && echo blah > test && cat test');
    expect(r).toEqual({ code: 0, out: 'blah\n' });
  });

  it('test_no_new_privs_is_enabled', async () => {
    expect((await inSandbox("grep '^NoNewPrivs:' /proc/self/status")).out).toMatch(/^NoNewPrivs:\s+1$/m);
  });

  it.each([
    ['sandbox_blocks_curl', 'curl -sS -I --max-time 5 http://127.0.0.1:1/'],
    ['sandbox_blocks_wget', 'wget -q -T 5 -O- http://127.0.0.1:1/'],
    ['sandbox_blocks_ping', 'ping -c 1 -W 1 127.0.0.1 || ping -c 1 -W 1 8.8.8.8'],
    ['sandbox_blocks_nc', 'nc -z -w 2 127.0.0.1 80'],
    ['sandbox_blocks_ssh', 'ssh -o BatchMode=yes -o ConnectTimeout=1 github.com true'],
    ['sandbox_blocks_getent', 'getent ahosts openai.com'],
    ['sandbox_blocks_dev_tcp_redirection', 'echo hi > /dev/tcp/127.0.0.1/80'],
  ])('%s', async (_name, cmd) => {
    const r = await inSandbox(cmd);
    // A missing program exits 127; anything but 0 is a block. Exit 0 is a breach.
    expect(r.code).not.toBe(0);
  });

  it('sandbox_blocks_git_..._writes_inside_writable_root: .git/config stays read-only', async () => {
    const r = await inSandbox('echo denied > .git/config');
    expect(r.code).not.toBe(0);
    expect(readFileSync(path.join(folder, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n');
  });

  it('sandbox_blocks_codex_symlink_replacement_attack: a protected folder that is a link is read-only where it leads', async () => {
    const r = await inSandbox('echo denied > .vscode/tasks.json');
    expect(r.code).not.toBe(0);
    expect(has(path.join(folder, 'decoy', 'tasks.json'))).toBe(false);
    expect(lstatSync(path.join(folder, '.vscode')).isSymbolicLink()).toBe(true);
  });

  it('a protected folder that is a link into the hidden home shows nothing of it, and writes nothing there', async () => {
    const r = await inSandbox('cat .idea/notes.txt; echo planted > .idea/workspace.xml; ls -la .idea/');
    expect(r.out).not.toContain('private-notes-4d2e');
    expect(has(path.join(home, 'private', 'workspace.xml'))).toBe(false);
    // The control: the file is there, for the user.
    expect(readFileSync(path.join(home, 'private', 'notes.txt'), 'utf8')).toBe('private-notes-4d2e\n');
  });
});

describe.skipIf(SKIP !== null)(
  'escape cases ported from sandbox-runtime (seccomp-filter, integration, nested userns)',
  () => {
    it.skipIf(!found.seccomp)(
      'Socket Filtering Behavior: AF_UNIX stream and datagram refused; TCP, UDP and IPv6 sockets made',
      async () => {
        const py = [
          'import socket',
          'for fam, typ, name in [(socket.AF_UNIX, socket.SOCK_STREAM, "unix-stream"), (socket.AF_UNIX, socket.SOCK_DGRAM, "unix-dgram"), (socket.AF_INET, socket.SOCK_STREAM, "tcp"), (socket.AF_INET, socket.SOCK_DGRAM, "udp"), (socket.AF_INET6, socket.SOCK_STREAM, "tcp6")]:',
          '    try:',
          '        socket.socket(fam, typ).close(); print(name, "made")',
          '    except OSError as e:',
          '        print(name, "refused", e.errno)',
        ].join('\n');
        const r = await inSandbox(`/usr/bin/python3 -c '${py}'`);
        expect(r.out).toMatch(/^unix-stream refused 1$/m);
        expect(r.out).toMatch(/^unix-dgram refused 1$/m);
        expect(r.out).toMatch(/^tcp made$/m);
        expect(r.out).toMatch(/^udp made$/m);
        // A socketpair is no way out (it connects nothing outside): pipes of child processes need it.
        expect(
          (await inSandbox(`/usr/bin/python3 -c 'import socket; socket.socketpair(); print("pair")'`)).out,
        ).toMatch(/^pair$/m);
      },
    );

    it('should isolate PID namespace: the host processes are not there', async () => {
      const r = await inSandbox('ls /proc | grep -cE "^[0-9]+$"');
      expect(Number(r.out.trim())).toBeLessThan(15);
    });

    it('should prevent symlink-based filesystem escape attempts', async () => {
      const target = path.join(outside, 'escape.txt');
      const r = await inSandbox(`ln -s ${target} escape-link && echo escaped > escape-link`);
      // Refused where it leads: read-only, or out of sight when the checkout is under an emptied /tmp.
      expect(r.code).not.toBe(0);
      expect(r.out.toLowerCase()).toMatch(/read-only file system|no such file or directory/);
      expect(has(target)).toBe(false);
    });

    it('should terminate background processes when sandbox exits', async () => {
      const marker = path.join(folder, 'bg-marker');
      await inSandbox(`(for i in $(seq 1 600); do echo $i >> ${marker}; sleep 0.05; done) & echo started`);
      const seen = has(marker) ? readFileSync(marker, 'utf8').length : 0;
      // Nothing the command left running writes after bwrap has gone (its PID namespace went with it).
      await inSandbox('true');
      expect(has(marker) ? readFileSync(marker, 'utf8').length : 0).toBe(seen);
    });

    it('should prevent privilege escalation attempts: a setuid copy runs as the user, sudo and su fail', async () => {
      const r = await inSandbox('cp /bin/bash ./suid-bash && chmod u+s ./suid-bash && ./suid-bash -p -c "id -u"');
      expect(r.out.trim().split('\n').pop()).toBe(String(user.uid));
      const s = await inSandbox('sudo -n id -u 2>&1 || su -c "id -u" 2>&1 </dev/null || echo blocked');
      expect(s.out).not.toMatch(/^0$/m);
    });

    it('should prevent creation of special file types: a fifo yes, a hard link to /etc/passwd and a device no', async () => {
      const r = await inSandbox(
        'mkfifo test.fifo && test -p test.fifo && echo fifo; ln /etc/passwd hard.txt; mknod dev c 1 3',
      );
      expect(r.out).toMatch(/^fifo$/m);
      expect(has(path.join(folder, 'hard.txt'))).toBe(false);
      expect(has(path.join(folder, 'dev'))).toBe(false);
    });

    it.skipIf(!found.seccomp)(
      'linux-nested-userns: no user namespace can be made, so no read-only mount can be undone',
      async () => {
        const r = await inSandbox(
          `unshare -U -r -m sh -c 'umount -l ${folder}/.git/config && echo unmounted' ; /usr/bin/python3 -c 'import os; os.unshare(os.CLONE_NEWUSER); print("made")'`,
        );
        expect(r.out).not.toMatch(/unmounted|^made$/m);
        expect(r.out).toMatch(/Operation not permitted/);
      },
    );
  },
);
