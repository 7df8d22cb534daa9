import { lstatSync } from 'node:fs';
import path from 'node:path';
import { SEATBELT_PROGRAM, type SandboxInfo } from './detect';

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
  /** false: no network but the sandbox's own loopback. */
  network: boolean;
  /** More folders it may write (an MCP server's own package cache). */
  writable?: readonly string[];
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

/**
 * bubblewrap's arguments: the whole file system read-only, a fresh /dev and /proc (its own PID
 * namespace: the app's processes and their environment are not in it), a private temp folder
 * (TMPDIR; the machine's /tmp stays readable like the rest, so a project kept there works), the
 * working folder writable, its protected paths read-only again, the hidden places covered by an
 * empty tmpfs (folders) or /dev/null (files), no network unless allowed. Later mounts cover
 * earlier ones, so the order is the policy: a data folder inside the working folder is still hidden.
 */
export function bwrapArgs(input: WrapInput): string[] {
  const a = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const { around, inside } = splitHidden(input);
  // A hidden folder that holds the working folder (an MCP server's folder under the app's data):
  // emptied first, the working folder mounted into it, then made read-only.
  for (const p of around) a.push('--tmpfs', p);
  a.push('--bind', input.folder, input.folder);
  if (input.tmpDir !== null) a.push('--bind', input.tmpDir, input.tmpDir);
  for (const p of input.writable ?? []) a.push('--bind', p, p);
  for (const p of around) a.push('--remount-ro', p);
  a.push(...guardMounts(input));
  for (const { p, kind } of inside) {
    if (kind === 'dir') a.push('--tmpfs', p, '--remount-ro', p);
    else a.push('--ro-bind', '/dev/null', p);
  }
  if (!input.network) a.push('--unshare-net');
  a.push('--unshare-pid', '--die-with-parent', '--new-session', '--chdir', input.cwd, '--');
  return [...a, input.command, ...input.args];
}

/**
 * The git surface and the protected paths of the folder (sandbox/commandGuard.ts): each `.git`
 * bound onto itself first (a mount point cannot be renamed or removed: EBUSY), then each
 * protected path that exists read-only. Links are never mounted (bwrap would follow them).
 */
function guardMounts(input: WrapInput): string[] {
  const a: string[] = [];
  for (const p of input.pinned ?? []) if (kindOf(p) === 'dir') a.push('--bind', p, p);
  for (const p of input.readOnlyInside) {
    const kind = kindOf(p);
    if (kind === 'dir' || kind === 'file') a.push('--ro-bind', p, p);
  }
  return a;
}

/**
 * The hidden places that exist, parents first (what lies in a hidden folder is gone with it),
 * apart: the folders that hold the working folder, and the rest.
 */
function splitHidden(
  input: WrapInput,
  /** Seatbelt denies by path, so a place that does not exist yet is denied too. */
  missingToo = false,
): { around: string[]; inside: { p: string; kind: 'dir' | 'file' }[] } {
  const around: string[] = [];
  const inside: { p: string; kind: 'dir' | 'file' }[] = [];
  const covered: string[] = [];
  for (const p of [...input.hidden].sort((x, y) => x.length - y.length)) {
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
  const writable = [input.folder, ...(input.tmpDir !== null ? [input.tmpDir] : []), ...(input.writable ?? [])];
  const { around, inside } = splitHidden(input, true);
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
    return { command: sandbox.program ?? 'bwrap', args: bwrapArgs(input), env: { TMPDIR: input.tmpDir ?? '/tmp' } };
  if (sandbox.kind === 'seatbelt')
    return {
      command: sandbox.program ?? SEATBELT_PROGRAM,
      args: ['-p', seatbeltProfile(input), input.command, ...input.args],
      env: input.tmpDir !== null ? { TMPDIR: input.tmpDir } : {},
    };
  throw new Error('no sandbox on this machine: the command must not run as if it were confined');
}
