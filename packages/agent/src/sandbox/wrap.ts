import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { SEATBELT_PROGRAM, type SandboxInfo } from './detect';
import type { HomeMount } from './home';

export interface WrapInput {
  /** The program and its arguments as they would run without a sandbox. */
  command: string;
  args: string[];
  /** Where it starts (inside the sandbox: the same path). */
  cwd: string;
  /** The one folder it may write (with `tmpDir`). */
  folder: string;
  /** A private temp folder, writable, the command's TMPDIR; null: none (every temp folder read-only). */
  tmpDir: string | null;
  /** Paths inside `folder` mounted read-only (commandGuard.ts: every depth; sandboxReadOnlyPaths: the top). */
  readOnlyInside: readonly string[];
  /** Folders inside `folder` bound onto themselves, so they cannot be renamed or removed (each `.git`). */
  pinned?: readonly string[];
  /** Paths not visible at all (sandboxHiddenPaths): an empty folder or file is put over each. */
  hidden: readonly string[];
  /** true: the machine's network as it is (MCP servers); false: none but `proxy`, if given. */
  network: boolean;
  /** More folders it may write (an MCP server's own package cache). */
  writable?: readonly string[];
  /** The home folder as the sandbox shows it (SandboxHome); absent: as the rest of the disk. */
  home?: SandboxHome;
  /** Folders that hold other programs' sockets, each covered by an empty one (socketPlaces). */
  socketPlaces?: readonly string[];
  /**
   * The folders of the command's PATH: one under an emptied socket place (a toolchain unpacked
   * under /tmp) comes back read-only, with the folder that holds it there (pathMounts), so the
   * command finds its programs and what they load (seccomp still refuses any unix socket there).
   */
  pathDirs?: readonly string[];
  /** The program and the files the user configured to run (an MCP server's script): the same. */
  programs?: readonly string[];
  /** The network proxy of named domains (sandbox/network.ts), reached through a relay inside. */
  proxy?: SandboxProxy;
  /** An empty file no one may read, mounted over hidden files (null: /dev/null, read as empty). */
  blankFile?: string | null;
}

/** The home folder inside the sandbox: the session's own, with the read-only allow-list on top. */
export interface SandboxHome {
  /** The user's home folder (where it is seen). */
  path: string;
  /** The session's own folder mounted there, writable. */
  sessionHome: string;
  /** Toolchains and the user's folders (sandbox/home.ts homeReadOnlyMounts). */
  readOnly: readonly HomeMount[];
  /** A git config with only the identity, mounted read-only at ~/.gitconfig (null: none). */
  gitConfig: string | null;
}

/** Where a command reaches the proxy: its unix socket (bound in) and the relay's port inside. */
export interface SandboxProxy {
  socket: string;
  /** socat, which listens on 127.0.0.1:`port` inside and forwards to `socket`. */
  socat: string;
  port: number;
}

export interface Wrapped {
  command: string;
  args: string[];
  /** Variables to set for the wrapped process (TMPDIR points at the private temp folder). */
  env: Record<string, string>;
}

function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

function kindOf(p: string): 'dir' | 'file' | 'link' | null {
  try {
    const st = lstatSync(p);
    return st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

const depth = (p: string): number => p.split(path.sep).filter(Boolean).length;

/**
 * bubblewrap's arguments: the whole file system read-only, a fresh /dev and /proc (its own PID
 * namespace: the app's processes and their environment are not in it), the places that hold other
 * programs' sockets emptied (the machine's /tmp, the user's runtime folder), the home folder
 * replaced by the session's own with the toolchain allow-list on top (homeMountArgs), the working
 * folder and the private temp folder writable, the protected paths read-only again, the hidden
 * places covered by an empty folder or file, no network but the proxy's relay, no capability, and
 * the command under the seccomp helper (no unix socket, no new namespace). Later mounts cover
 * earlier ones, so the order is the policy: a data folder inside the working folder is still hidden.
 */
export function bwrapArgs(input: WrapInput, sandbox: Pick<SandboxInfo, 'seccomp' | 'caps'> = {}): string[] {
  const a = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const p of input.socketPlaces ?? []) if (kindOf(p) === 'dir') a.push('--tmpfs', p);
  // The sandbox's own programs (the seccomp helper, the proxy's relay) live in the app's install,
  // which may itself be under an emptied place (a checkout under /tmp): it comes back too.
  const own = [sandbox.seccomp, input.proxy?.socat].flatMap((f) => (f ? [f] : []));
  const back = pathMounts(input, own);
  for (const m of back) a.push('--ro-bind', m.src, m.dest);
  const { around, inside } = splitHidden(input, false, back);
  // A hidden folder that holds the working folder (an MCP server's folder under the app's data):
  // emptied first, the working folder mounted into it, then made read-only.
  for (const p of around) a.push('--tmpfs', p);
  a.push(...homeMountArgs(input));
  for (const p of around) a.push('--remount-ro', p);
  a.push(...guardMounts(input));
  for (const { p, kind } of inside) {
    if (kind === 'dir') a.push('--perms', '0000', '--tmpfs', p, '--remount-ro', p);
    else a.push('--ro-bind', input.blankFile ?? '/dev/null', p);
  }
  if (input.proxy) a.push('--bind', input.proxy.socket, input.proxy.socket);
  if (!input.network) a.push('--unshare-net');
  a.push('--unshare-pid', '--unshare-user', ...(sandbox.caps ?? ['--cap-drop', 'ALL']));
  a.push('--die-with-parent', '--new-session', '--chdir', input.cwd, '--');
  return [...a, ...commandArgs(input, sandbox.seccomp ?? null)];
}

/**
 * What an emptied socket place would hide that the command needs: for each PATH folder, program
 * the user configured, or program of the sandbox's own (the seccomp helper, the proxy relay) that
 * lies under one, the folder directly under the place that holds it comes back read-only — the
 * whole toolchain or install (`/tmp/ci/.tools/node/bin` brings back `/tmp/ci`, where `npm` and
 * `pnpm` load their code from), never the place itself, and never a link that leads out of it.
 */
function pathMounts(input: WrapInput, own: readonly string[] = []): { dest: string; src: string }[] {
  const places = (input.socketPlaces ?? []).filter((p) => kindOf(p) === 'dir');
  const tops = new Set<string>();
  for (const wanted of [...(input.pathDirs ?? []), ...(input.programs ?? []), ...own]) {
    if (!path.isAbsolute(wanted)) continue;
    const p = path.normalize(wanted);
    const place = places.find((pl) => within(p, pl) && p !== pl);
    if (place) tops.add(path.join(place, path.relative(place, p).split(path.sep)[0]!));
  }
  const out: { dest: string; src: string }[] = [];
  for (const top of tops) {
    try {
      const src = realpathSync(top);
      const place = places.find((pl) => within(top, pl))!;
      if (statSync(src).isDirectory() && within(src, realpathSync(place)) && src !== realpathSync(place))
        out.push({ dest: top, src });
    } catch {
      // Not there: nothing to find in it.
    }
  }
  return out;
}

/**
 * The protected paths, read-only where they really are: a protected folder that is a link (a
 * `.vscode` pointing at another folder of the project) is mounted read-only at its target (bwrap
 * cannot mount over the link itself, and would refuse to start the command) when the target is
 * where the command could write; anywhere else it is read-only or hidden already, and mounting it
 * would bring a hidden place (a folder of the real home) back into view.
 */
function readOnlyArgs(input: WrapInput): string[] {
  const writable = [input.folder, ...(input.tmpDir !== null ? [input.tmpDir] : []), ...(input.writable ?? [])].flatMap(
    (w) => {
      try {
        return [w, realpathSync(w)];
      } catch {
        return [w];
      }
    },
  );
  const out: string[] = [];
  for (const p of input.readOnlyInside) {
    const kind = kindOf(p);
    if (kind === null) continue;
    let real = p;
    if (kind === 'link') {
      try {
        real = realpathSync(p);
      } catch {
        continue; // a dangling link: nothing to protect there
      }
      if (!writable.some((w) => within(real, w))) continue;
    }
    out.push('--ro-bind', real, real);
  }
  return out;
}

/**
 * The writable and read-only binds, outer ones first (a working folder inside the home folder is
 * mounted over the session's home; a home folder inside the working folder, as in tests, over it).
 */
function homeMountArgs(input: WrapInput): string[] {
  const binds: { dest: string; args: string[] }[] = [];
  const home = input.home;
  if (home) {
    binds.push({ dest: home.path, args: ['--bind', home.sessionHome, home.path] });
    for (const m of home.readOnly) binds.push({ dest: m.dest, args: ['--ro-bind', m.src, m.dest] });
    if (home.gitConfig !== null) {
      const dest = path.join(home.path, '.gitconfig');
      binds.push({ dest, args: ['--ro-bind', home.gitConfig, dest] });
    }
  }
  binds.push({ dest: input.folder, args: ['--bind', input.folder, input.folder] });
  if (input.tmpDir !== null) binds.push({ dest: input.tmpDir, args: ['--bind', input.tmpDir, input.tmpDir] });
  for (const p of input.writable ?? []) binds.push({ dest: p, args: ['--bind', p, p] });
  // Stable: at one depth, the order above (the session's home before what is mounted in it).
  return binds
    .map((b, i) => ({ ...b, i }))
    .sort((x, y) => depth(x.dest) - depth(y.dest) || x.i - y.i)
    .flatMap((b) => b.args);
}

/**
 * What runs as bwrap's command: the seccomp helper in front of the program, and before both, when
 * there is a proxy, the relay (socat, started before the filter forbids unix sockets) and a wait
 * until it listens. `/bin/sh` runs no start-up file when not interactive (bash would read
 * BASH_ENV, which the command's environment could name), and the wait starts no program (each
 * would run before the filter): it reads /proc/net/tcp with built-ins only, a bounded number of times.
 */
function commandArgs(input: WrapInput, seccomp: string | null): string[] {
  const program = [...(seccomp !== null ? [seccomp] : []), input.command, ...input.args];
  if (!input.proxy) return program;
  const { socat, port, socket } = input.proxy;
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const script = [
    `"$0" TCP4-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr "UNIX-CONNECT:$1" >/dev/null 2>&1 &`,
    'shift',
    'i=0',
    'while [ "$i" -lt 20000 ]; do',
    `  while read -r _ l _ s _; do [ "$l:$s" = "0100007F:${hexPort}:0A" ] && break 2; done < /proc/net/tcp`,
    '  i=$((i + 1))',
    'done',
    'exec "$@"',
  ].join('\n');
  return ['/bin/sh', '-c', script, socat, socket, ...program];
}

/** Proxy variables for a command whose proxy relay listens on 127.0.0.1:`port` (credentials in the URL). */
export function proxyEnv(port: number, user: string, token: string): Record<string, string> {
  const url = `http://${encodeURIComponent(user)}:${encodeURIComponent(token)}@127.0.0.1:${port}`;
  const none = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: none,
    no_proxy: none,
    // git sends the proxy's Basic credentials up front instead of after a 407 (no credential helper asked)
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.proxyAuthMethod',
    GIT_CONFIG_VALUE_0: 'basic',
  };
}

/**
 * The git surface and the protected paths of the folder (sandbox/commandGuard.ts): each `.git`
 * bound onto itself first (a mount point cannot be renamed or removed: EBUSY), then each
 * protected path that exists read-only (readOnlyArgs: a link only where it leads, and only there
 * where the command could write).
 */
function guardMounts(input: WrapInput): string[] {
  const a: string[] = [];
  for (const p of input.pinned ?? []) if (kindOf(p) === 'dir') a.push('--bind', p, p);
  return [...a, ...readOnlyArgs(input)];
}

/**
 * The hidden places that exist, parents first (what lies in a hidden folder is gone with it),
 * apart: the folders that hold the working folder, and the rest.
 */
function splitHidden(
  input: WrapInput,
  /** Seatbelt denies by path, so a place that does not exist yet is denied too. */
  missingToo = false,
  /** What bwrap mounts back under the emptied places (pathMounts, worked out once per command). */
  back: readonly { dest: string }[] = [],
): { around: string[]; inside: { p: string; kind: 'dir' | 'file' }[] } {
  const around: string[] = [];
  const inside: { p: string; kind: 'dir' | 'file' }[] = [];
  const covered: string[] = [];
  for (const p of [...input.hidden].sort((x, y) => x.length - y.length)) {
    if (!visible(p, input, back)) continue;
    if (covered.some((c) => within(p, c)) && !within(input.folder, p)) continue;
    // A link is hidden where it leads (sandboxHiddenPaths lists that path too).
    const found = kindOf(p);
    const kind = found === null && missingToo ? 'dir' : found;
    if (kind !== 'dir' && kind !== 'file') continue;
    if (kind === 'dir' && within(input.folder, p)) around.push(p);
    else inside.push({ p, kind });
    if (kind === 'dir') covered.push(p);
  }
  return { around, inside };
}

/**
 * Whether a path can be seen inside the sandbox at all: not under an emptied socket place or the
 * replaced home folder, unless a mount brings it back (the working folder, a read-only toolchain).
 * What cannot be seen needs no cover (and a cover would make its mount point in the session's home).
 */
function visible(p: string, input: WrapInput, mounted: readonly { dest: string }[]): boolean {
  const gone = [...(input.socketPlaces ?? []), ...(input.home ? [input.home.path] : [])];
  if (!gone.some((g) => within(p, g))) return true;
  const back = [
    ...mounted.map((m) => m.dest),
    input.folder,
    ...(input.tmpDir !== null ? [input.tmpDir] : []),
    ...(input.writable ?? []),
    ...(input.home?.readOnly.map((m) => m.dest) ?? []),
  ];
  return back.some((b) => within(p, b) || within(b, p));
}

/** A string literal of the Seatbelt profile language (a Scheme dialect). */
function sbString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The Seatbelt (macOS sandbox-exec) profile of the same policy. `(allow default)` and then
 * denials, because a `(deny default)` profile has to list every Mach service a shell and its
 * tools need, and one missing breaks commands in ways that look like bugs; the last matching rule
 * wins, so: every write denied, then the folder, temp and the terminal devices allowed, then the
 * protected paths denied again; reads of the hidden places denied; network denied unless allowed
 * (local Unix sockets stay, as bwrap's loopback does).
 */
export function seatbeltProfile(input: WrapInput): string {
  const writable = [input.folder, ...(input.tmpDir !== null ? [input.tmpDir] : []), ...(input.writable ?? [])].flatMap(
    (w) => {
      try {
        return [w, realpathSync(w)];
      } catch {
        return [w];
      }
    },
  );
  const { around, inside } = splitHidden(input, true, pathMounts(input));
  const lines = [
    '(version 1)',
    '(allow default)',
    '(deny file-write*)',
    ...(around.length > 0 ? [`(deny file-read* ${around.map((p) => `(subpath ${sbString(p)})`).join(' ')})`] : []),
    `(allow file-write* ${writable.map((p) => `(subpath ${sbString(p)})`).join(' ')} (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (regex #"^/dev/tty") (regex #"^/dev/fd/"))`,
  ];
  if (input.readOnlyInside.length > 0)
    lines.push(`(deny file-write* ${input.readOnlyInside.map((p) => `(subpath ${sbString(p)})`).join(' ')})`);
  // A `.git` itself: not renamed, removed or replaced (what is in it stays writable).
  if ((input.pinned ?? []).length > 0)
    lines.push(`(deny file-write* ${(input.pinned ?? []).map((p) => `(literal ${sbString(p)})`).join(' ')})`);
  if (around.length > 0) lines.push(`(allow file-read* (subpath ${sbString(input.folder)}))`);
  if (inside.length > 0)
    lines.push(`(deny file-read* file-write* ${inside.map(({ p }) => `(subpath ${sbString(p)})`).join(' ')})`);
  if (!input.network)
    lines.push(
      '(deny network-outbound (remote ip "*:*"))',
      '(deny network-inbound (local ip "*:*"))',
      '(deny network-bind (local ip "*:*"))',
    );
  return lines.join('\n') + '\n';
}

/**
 * The command as it runs in `sandbox` (from detectSandbox): bwrap or sandbox-exec in front of it.
 * Throws for kind 'none': a caller that has no sandbox must ask, never run it bare thinking it is confined.
 */
export function wrapCommand(sandbox: SandboxInfo, input: WrapInput): Wrapped {
  if (sandbox.kind === 'bwrap')
    return {
      command: sandbox.program ?? 'bwrap',
      args: bwrapArgs(input, sandbox),
      env: { TMPDIR: input.tmpDir ?? '/tmp', ...(input.home ? { HOME: input.home.path } : {}) },
    };
  if (sandbox.kind === 'seatbelt')
    return {
      command: sandbox.program ?? SEATBELT_PROGRAM,
      args: ['-p', seatbeltProfile(input), input.command, ...input.args],
      env: input.tmpDir !== null ? { TMPDIR: input.tmpDir } : {},
    };
  throw new Error('no sandbox on this machine: the command must not run as if it were confined');
}
