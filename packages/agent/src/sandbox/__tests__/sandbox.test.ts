// The sandbox with the real bwrap: real child processes, real files, a real TCP server.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runShell } from '../../tools/shell';
import {
  detectSandbox,
  hiddenSettingsNote,
  sandboxFailure,
  sandboxFailureHint,
  sandboxHiddenPaths,
  sandboxReadOnlyPaths,
  seatbeltProfile,
  wrapCommand,
  type SandboxInfo,
  type SandboxRun,
  type WrapInput,
} from '../index';

const sandbox: SandboxInfo = await detectSandbox('linux');
const NO_BWRAP =
  sandbox.kind !== 'bwrap'
    ? `bwrap is not usable here (${sandbox.reason ?? '?'} ${sandbox.detail ?? ''}): install bubblewrap (scripts/toolchain.sh does)`
    : null;
if (NO_BWRAP) console.warn(`skipping the bwrap tests: ${NO_BWRAP}`);

/** A sandboxed run without a session's home or network (the wrap tests give their own). */
function bareRun(): SandboxRun {
  return {
    info: sandbox,
    domains: null,
    tmpDir: null,
    hidden: [],
    home: null,
    socketPlaces: [],
    blankFile: null,
    env: {},
    connect: () => Promise.resolve({ error: 'no network in this test' }),
  };
}
const noNet = { domains: null, home: null };

interface Ran {
  code: number | null;
  out: string;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

let root: string;
let folder: string;
let home: string;
let dataDir: string;
let outside: string;

function input(cmd: string, over: Partial<WrapInput> = {}): WrapInput {
  return {
    command: 'bash',
    args: ['-c', cmd],
    cwd: folder,
    folder,
    tmpDir: null,
    readOnlyInside: sandboxReadOnlyPaths(folder),
    hidden: sandboxHiddenPaths({ home, dataDir, dbFile: path.join(dataDir, 'threadline.db') }),
    network: false,
    ...over,
  };
}

/** The command in the sandbox, and the same command bare (as after "run outside the sandbox"). */
async function both(cmd: string, over: Partial<WrapInput> = {}): Promise<{ inside: Ran; bare: Ran }> {
  const w = wrapCommand(sandbox, input(cmd, over));
  const inside = await run(w.command, w.args, folder, w.env);
  const bare = await run('bash', ['-c', cmd], folder);
  return { inside, bare };
}

/**
 * Not under /tmp: the sandbox has its own /tmp, so a folder there is out of sight anyway and
 * "cannot write outside the working folder" would prove nothing. node_modules/.cache is the
 * conventional, git-ignored place for such files.
 */
const BASE = path.resolve(import.meta.dirname, '../../../node_modules/.cache');

beforeEach(() => {
  mkdirSync(BASE, { recursive: true });
  root = mkdtempSync(path.join(BASE, 'tl-sandbox-'));
  folder = path.join(root, 'work');
  home = path.join(root, 'home');
  dataDir = path.join(root, 'data');
  outside = path.join(root, 'outside');
  for (const d of [folder, home, dataDir, outside, path.join(folder, '.git', 'hooks')])
    mkdirSync(d, { recursive: true });
  writeFileSync(path.join(folder, '.git', 'config'), '[core]\n\tbare = false\n');
  writeFileSync(path.join(dataDir, 'threadline.db'), 'the database');
  writeFileSync(path.join(dataDir, 'secret.key'), 'the sealing key');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('detectSandbox', () => {
  it('finds no sandbox on a PATH without bwrap, and says so', async () => {
    const empty = path.join(tmpdir(), `tl-no-bwrap-${process.pid}`);
    await expect(detectSandbox('linux', { path: empty })).resolves.toEqual({ kind: 'none', reason: 'bwrap_missing' });
  });

  it('can be switched off, and knows Windows has none', async () => {
    await expect(detectSandbox('linux', { force: 'none' })).resolves.toEqual({ kind: 'none', reason: 'disabled' });
    await expect(detectSandbox('win32')).resolves.toEqual({ kind: 'none', reason: 'unsupported_platform' });
  });

  it('refuses to wrap a command when there is no sandbox', () => {
    expect(() => wrapCommand({ kind: 'none', reason: 'bwrap_missing' }, input('true'))).toThrow(/no sandbox/);
  });
});

describe.skipIf(NO_BWRAP !== null)('a command in the bwrap sandbox', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((s) => s.end('hello from outside\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('writes the working folder and its private temp folder (TMPDIR)', async () => {
    const tmp = path.join(root, 'private-tmp');
    mkdirSync(tmp, { recursive: true });
    const w = wrapCommand(
      sandbox,
      input('echo made > made.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t"', { tmpDir: tmp }),
    );
    const inside = await run(w.command, w.args, folder, w.env);
    expect(inside.code).toBe(0);
    expect(readFileSync(path.join(folder, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('finds its PATH, what its programs load, and its own seccomp helper under an emptied place (a checkout under /tmp)', async () => {
    // An emptied socket place that holds a toolchain (bin/ links into lib/, as npm's and pnpm's
    // do) and the sandbox's own helper, as a clone under /tmp holds its .tools and node_modules.
    const place = path.join(root, 'place');
    const tools = path.join(place, 'toolchain', 'bin');
    mkdirSync(tools, { recursive: true });
    mkdirSync(path.join(place, 'toolchain', 'lib'));
    const real = path.join(place, 'toolchain', 'lib', 'hello.sh');
    writeFileSync(real, '#!/bin/sh\necho hello from the toolchain\n', { mode: 0o755 });
    symlinkSync('../lib/hello.sh', path.join(tools, 'hello-tool'));
    const ours: SandboxInfo = { ...sandbox };
    if (sandbox.seccomp) {
      const helper = path.join(place, 'app', 'vendor', 'apply-seccomp');
      mkdirSync(path.dirname(helper), { recursive: true });
      writeFileSync(helper, readFileSync(sandbox.seccomp), { mode: 0o755 });
      ours.seccomp = helper;
    }
    // Beside them: another program's socket folder and a link out of the place.
    mkdirSync(path.join(place, 'ssh-agent-dir'));
    writeFileSync(path.join(place, 'ssh-agent-dir', 'agent.sock'), '');
    symlinkSync(outside, path.join(place, 'out'));
    writeFileSync(path.join(outside, 'private.txt'), 'private');
    const over = { socketPlaces: [place], pathDirs: [tools, path.join(place, 'out')] };
    const w = wrapCommand(ours, input('hello-tool', over));
    const inside = await run(w.command, w.args, folder, { ...w.env, PATH: `${tools}:/usr/bin:/bin` });
    expect(inside.out).toMatch(/^hello from the toolchain$/m);
    expect(inside.code).toBe(0);
    const look = wrapCommand(ours, input(`ls -a ${place}; cat ${path.join(place, 'out', 'private.txt')}`, over));
    const seen = await run(look.command, look.args, folder, look.env);
    expect(seen.out).toMatch(/^toolchain$/m);
    expect(seen.out).not.toMatch(/ssh-agent-dir|private$/m);
    expect(seen.out).toMatch(/No such file/);
  });

  it('cannot write outside the working folder; outside the sandbox it can', async () => {
    const target = path.join(outside, 'x.txt');
    const { inside, bare } = await both(`echo planted > ${target}`);
    expect(inside.code).not.toBe(0);
    expect(inside.out).toMatch(/Read-only file system/);
    expect(sandboxFailure(inside.code, inside.out, noNet)).toBe('write');
    expect(bare.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('planted\n');
  });

  it('cannot write .git/hooks or .git/config; outside the sandbox it can', async () => {
    const hook = path.join(folder, '.git', 'hooks', 'pre-commit');
    const cmd = `printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit; git config --file .git/config core.fsmonitor 'echo pwned'; echo '[x]' >> .git/config`;
    const w = wrapCommand(sandbox, input(cmd));
    const inside = await run(w.command, w.args, folder, w.env);
    expect(inside.out).toMatch(/Read-only file system|could not lock|Device or resource busy/);
    expect(existsSync(hook)).toBe(false);
    expect(readFileSync(path.join(folder, '.git', 'config'), 'utf8')).toBe('[core]\n\tbare = false\n');
    const bare = await run('bash', ['-c', cmd], folder);
    expect(bare.code).toBe(0);
    expect(existsSync(hook)).toBe(true);
    expect(readFileSync(path.join(folder, '.git', 'config'), 'utf8')).toMatch(/fsmonitor/);
  });

  it("cannot read the app's data folder; outside the sandbox it can", async () => {
    const { inside, bare } = await both(`cat ${dataDir}/secret.key ${dataDir}/threadline.db; ls -A ${dataDir}`);
    // Not there at all: the folder is empty inside the sandbox.
    expect(inside.out).toMatch(/No such file or directory/);
    expect(inside.out).not.toMatch(/sealing key|the database|^secret\.key$/m);
    expect(bare.out).toMatch(/the sealing key/);
  });

  it('hides a data folder even inside the working folder', async () => {
    const innerData = path.join(folder, '.threadline-data');
    mkdirSync(innerData);
    writeFileSync(path.join(innerData, 'secret.key'), 'inner key');
    const cmd = `cat ${innerData}/secret.key; ls -A ${innerData}; echo x > ${innerData}/planted`;
    const hidden = sandboxHiddenPaths({ home, dataDir: innerData, dbFile: path.join(innerData, 'threadline.db') });
    const w = wrapCommand(sandbox, input(cmd, { hidden }));
    const inside = await run(w.command, w.args, folder, w.env);
    expect(inside.out).toMatch(/No such file or directory/);
    expect(inside.out).not.toMatch(/inner key|^secret\.key$/m);
    expect(existsSync(path.join(innerData, 'planted'))).toBe(false);
    const bare = await run('bash', ['-c', cmd], folder);
    expect(bare.out).toMatch(/inner key/);
  });

  it("runs in a folder inside the hidden data folder (an MCP server's own) without seeing the rest", async () => {
    const own = path.join(dataDir, 'mcp', 'srv');
    mkdirSync(own, { recursive: true });
    const cmd = `echo ok > made.txt && cat made.txt; cat ${dataDir}/secret.key`;
    const w = wrapCommand(sandbox, input(cmd, { cwd: own, folder: own, readOnlyInside: [] }));
    const inside = await run(w.command, w.args, own, w.env);
    expect(inside.out).toMatch(/^ok$/m);
    expect(inside.out).not.toMatch(/sealing key/);
    expect(readFileSync(path.join(own, 'made.txt'), 'utf8')).toBe('ok\n');
  });

  it('does not see a credential folder, also through a symlink', async () => {
    const dotfiles = path.join(home, 'dotfiles', 'ssh');
    mkdirSync(dotfiles, { recursive: true });
    writeFileSync(path.join(dotfiles, 'id_rsa'), 'PRIVATE KEY');
    symlinkSync(dotfiles, path.join(home, '.ssh'));
    const { inside, bare } = await both(`cat ${home}/.ssh/id_rsa; cat ${dotfiles}/id_rsa`);
    expect(inside.out).not.toMatch(/PRIVATE KEY/);
    expect(bare.out).toMatch(/PRIVATE KEY/);
  });

  it('cannot connect to a port on 127.0.0.1 served from outside; with network, or outside, it can', async () => {
    const script = `const s=require('net').connect(${port},'127.0.0.1');s.on('data',d=>{process.stdout.write(d);process.exit(0)});s.on('error',e=>{console.log('error',e.code);process.exit(3)})`;
    const cmd = `'${process.execPath}' -e "${script}"`;
    const { inside, bare } = await both(cmd);
    expect(inside.code).toBe(3);
    expect(inside.out).toMatch(/ECONNREFUSED/);
    expect(sandboxFailure(inside.code, inside.out, noNet)).toBe('network');
    expect(bare.out).toMatch(/hello from outside/);
    const w = wrapCommand(sandbox, input(cmd, { network: true }));
    const networked = await run(w.command, w.args, folder, w.env);
    expect(networked.out).toMatch(/hello from outside/);
  });

  it('keeps its private temp folder between commands when one is given', async () => {
    const tmp = path.join(root, 'session-tmp');
    mkdirSync(tmp);
    // Its TMPDIR; the machine's /tmp stays read-only like the rest.
    const w1 = wrapCommand(
      sandbox,
      input('echo kept > "$TMPDIR/note" && ! touch /tmp/threadline-planted', { tmpDir: tmp }),
    );
    expect((await run(w1.command, w1.args, folder, w1.env)).code).toBe(0);
    expect(readFileSync(path.join(tmp, 'note'), 'utf8')).toBe('kept\n');
  });
});

/** Live (not zombie) processes whose command line is `sleep <arg>`, seen from outside the sandbox. */
function livingSleeps(arg: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmd === `sleep\0${arg}\0` && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  });
}

describe.skipIf(NO_BWRAP !== null)('the shell tool in the sandbox', () => {
  it('a timeout ends everything the command started inside the sandbox', async () => {
    const r = await runShell(
      { command: 'sleep 986.321 & sleep 986.321; echo never', timeoutSec: 1 },
      {
        sessionId: 's',
        cwd: folder,
        platform: 'linux',
        signal: new AbortController().signal,
        shellTimeoutMs: 10_000,
        loginShell: false,
        lookupToolOutput: () => null,
        latestTodos: () => null,
        sandbox: bareRun(),
      },
    );
    expect(r.content).toContain('timed out');
    expect(r.content).not.toContain('never');
    expect(r.meta?.sandboxed).toBe('bwrap');
    await vi.waitFor(() => expect(livingSleeps('986.321')).toEqual([]), { timeout: 10_000 });
  });
});

// What a sandboxed command leaves behind (held files, git's surface at any depth) is tested
// through the whole runtime as an unprivileged user: __tests__/heldFiles.test.ts, gitSurface.test.ts.

describe('seatbeltProfile', () => {
  it('denies every write but the folder and temp, re-denies protected paths, hides places, cuts the network', () => {
    const sb = seatbeltProfile({
      command: 'bash',
      args: [],
      cwd: '/Users/u/proj',
      folder: '/Users/u/proj',
      tmpDir: '/private/var/folders/x/T/tl',
      readOnlyInside: ['/Users/u/proj/.git/hooks', '/Users/u/proj/.git/config'],
      hidden: ['/Users/u/Library/Application Support/Threadline', '/Users/u/.ssh', '/Users/u/we"ird'],
      network: false,
    });
    const lines = sb.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual(['(version 1)', '(allow default)', '(deny file-write*)']);
    expect(lines[3]).toMatch(
      /^\(allow file-write\* \(subpath "\/Users\/u\/proj"\) \(subpath "\/private\/var\/folders\/x\/T\/tl"\)/,
    );
    expect(lines[4]).toBe(
      '(deny file-write* (subpath "/Users/u/proj/.git/hooks") (subpath "/Users/u/proj/.git/config"))',
    );
    expect(lines[5]).toMatch(/^\(deny file-read\* file-write\* /);
    expect(lines[5]).toContain('(subpath "/Users/u/Library/Application Support/Threadline")');
    expect(lines[5]).toContain('(subpath "/Users/u/.ssh")');
    expect(lines[5]).toContain('(subpath "/Users/u/we\\"ird")');
    expect(lines).toContain('(deny network-outbound (remote ip "*:*"))');
    // A repository's .git cannot be renamed or replaced; what is in it stays writable.
    const pinned = seatbeltProfile({
      command: 'bash',
      args: [],
      cwd: '/p',
      folder: '/p',
      tmpDir: null,
      readOnlyInside: [],
      pinned: ['/p/.git', '/p/sub/.git'],
      hidden: [],
      network: true,
    });
    expect(pinned).toContain('(deny file-write* (literal "/p/.git") (literal "/p/sub/.git"))');
    const open = seatbeltProfile({
      command: 'bash',
      args: [],
      cwd: '/p',
      folder: '/p',
      tmpDir: null,
      readOnlyInside: [],
      hidden: [],
      network: true,
    });
    expect(open).not.toMatch(/network/);
    expect(wrapCommand({ kind: 'seatbelt', program: '/usr/bin/sandbox-exec' }, input('ls')).args.slice(0, 1)).toEqual([
      '-p',
    ]);
  });
});

describe('sandboxFailure', () => {
  const ctx = { domains: null, home: '/nonexistent-tl-home' };
  it('names what the sandbox stopped, inside a pipeline (exit 0) too; nothing for a success or another error', () => {
    expect(sandboxFailure(1, 'touch: cannot touch /etc/x: Read-only file system', ctx)).toBe('write');
    expect(sandboxFailure(1, "rm: cannot remove 'Makefile': Device or resource busy", ctx)).toBe('write');
    expect(sandboxFailure(0, 'tee: /etc/x: Read-only file system', ctx)).toBe('write');
    expect(sandboxFailure(6, 'curl: (6) Could not resolve host: example.com', ctx)).toBe('network');
    expect(sandboxFailure(0, 'curl: (6) Could not resolve host: example.com', ctx)).toBe('network');
    expect(sandboxFailure(1, 'Error: getaddrinfo EAI_AGAIN registry.npmjs.org', ctx)).toBe('network');
    expect(sandboxFailure(0, 'curl: (56) CONNECT tunnel failed, response 403', ctx)).toBe('host');
    expect(sandboxFailure(2, 'Could not open a connection to your authentication agent.', ctx)).toBe('socket');
    expect(sandboxFailure(1, 'PermissionError: [Errno 1] Operation not permitted (AF_UNIX)', ctx)).toBe('socket');
    expect(sandboxFailure(2, 'grep: no such file', ctx)).toBeNull();
    expect(sandboxFailure(0, 'all good', ctx)).toBeNull();
  });

  it('a path the command could not find that exists outside, under the home folder, is a hidden one', () => {
    writeFileSync(path.join(home, '.bash_history'), 'export OPENAI_API_KEY=sk-x\n');
    const c = { domains: null, home };
    expect(sandboxFailure(1, `cat: ${home}/.bash_history: No such file or directory`, c)).toBe('hidden');
    expect(sandboxFailure(1, `cat: ${home}/.nothing-here: No such file or directory`, c)).toBeNull();
    expect(sandboxFailure(1, "cat: '~/.bash_history': Permission denied", c)).toBe('hidden');
  });

  it('the hint tells the true rule ($TMPDIR, not /tmp), the domains, and how to ask to run outside', () => {
    const write = sandboxFailureHint('write', ctx);
    expect(write).toMatch(/\$TMPDIR, kept between commands \(\/tmp is an empty folder of each command's own/);
    expect(write).toMatch(/"sandbox": false/);
    expect(sandboxFailureHint('host', { domains: ['pypi.org'], home: null })).toMatch(
      /only through a proxy to: pypi\.org/,
    );
    expect(sandboxFailureHint('network', ctx)).toMatch(/network is off/);
  });
});

describe('hiddenSettingsNote', () => {
  it("says pip's hidden settings under a pip command, nothing under another command or without the file", () => {
    mkdirSync(path.join(home, '.config', 'pip'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'pip', 'pip.conf'), '[global]\nindex-url = https://u:p@example/simple\n');
    expect(hiddenSettingsNote('python -m pip install requests', home)).toMatch(/~\/\.config\/pip\/pip\.conf \(pip\)/);
    expect(hiddenSettingsNote('ls -la', home)).toBeNull();
    expect(hiddenSettingsNote('npm install', home)).toBeNull();
  });
});
