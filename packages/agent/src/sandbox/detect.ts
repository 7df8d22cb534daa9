import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Which OS sandbox commands run in: bubblewrap (Linux), Seatbelt (macOS), or none. */
export type SandboxKind = 'bwrap' | 'seatbelt' | 'none';

/** Why there is no sandbox (Settings turns the code into one localized sentence). */
export type NoSandboxReason =
  'unsupported_platform' | 'bwrap_missing' | 'bwrap_broken' | 'seatbelt_missing' | 'disabled';

export interface SandboxInfo {
  kind: SandboxKind;
  /** The sandbox program (absolute path), when there is one. */
  program?: string;
  /** Set when kind is 'none'. */
  reason?: NoSandboxReason;
  /** bwrap's own words when its trial run failed (user namespaces off, …). */
  detail?: string;
  /**
   * Linux: sandbox-runtime's seccomp helper (apply-seccomp), which every command runs under: no
   * `socket(AF_UNIX)` (no unix socket outside can be reached, abstract ones included), no io_uring,
   * no new user namespace or mount change (the read-only mounts cannot be undone from inside).
   * null: none for this architecture, or it cannot run here (`detail` says why); the file system's
   * hiding of socket places and the network namespace are then the only wall.
   */
  seccomp?: string | null;
  /** Linux: bwrap's capability arguments (uid 0 keeps CAP_SETFCAP for the helper's namespace). */
  caps?: string[];
  /** Linux: socat, the relay to the network proxy inside the sandbox (null: none, no network can be allowed). */
  socat?: string | null;
}

export interface DetectOptions {
  /** The PATH searched for bwrap (default: this process's). */
  path?: string;
  /**
   * 'none' switches the sandbox off (tests of the fallback; a user whose kernel refuses it). The
   * environment variable THREADLINE_SANDBOX=none does the same for a whole run.
   */
  force?: 'none';
}

export const SEATBELT_PROGRAM = '/usr/bin/sandbox-exec';

/** The namespaces every command gets (wrap.ts adds the mounts): the trial run uses the same. */
export function namespaceArgs(caps: readonly string[]): string[] {
  return ['--unshare-net', '--unshare-pid', '--unshare-user', ...caps, '--die-with-parent', '--new-session'];
}

/** The arguments of the trial run: the same namespaces a real command gets, running `true`. */
function probeArgs(caps: readonly string[], seccomp: string | null): string[] {
  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...namespaceArgs(caps),
    '--',
    ...(seccomp !== null ? [seccomp] : []),
    'true',
  ];
}

/** CAP_SETFCAP, bit 31 of the capability sets in /proc/self/status. */
const CAP_SETFCAP_BIT = 31n;

/**
 * Capabilities inside the sandbox: none. As uid 0 (CI, a root desktop) bwrap would keep them all,
 * and a command could unmount the read-only binds; the seccomp helper's own user namespace maps
 * uid 0, which the kernel allows only when CAP_SETFCAP survives, so that one stays.
 */
function capabilityArgs(withHelper: boolean): string[] {
  const caps = ['--cap-drop', 'ALL'];
  if (!withHelper || process.geteuid?.() !== 0) return caps;
  try {
    const bounding = /^CapBnd:\s*([0-9a-f]+)$/im.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (bounding && (BigInt(`0x${bounding}`) >> CAP_SETFCAP_BIT) & 1n) caps.push('--cap-add', 'CAP_SETFCAP');
  } catch {
    // no /proc: the trial run says whether it works
  }
  return caps;
}

/**
 * sandbox-runtime's apply-seccomp for this architecture (x64, arm64), where its package installed
 * it; null elsewhere. The package is a dependency of the app, not bundled, so its files are real.
 */
export function seccompHelper(arch: string = process.arch): string | null {
  const dir = arch === 'x64' ? 'x64' : arch === 'arm64' ? 'arm64' : null;
  if (dir === null) return null;
  try {
    const pkg = createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/package.json');
    const file = path.join(path.dirname(pkg), 'vendor', 'seccomp', dir, 'apply-seccomp');
    accessSync(file, constants.X_OK);
    return file;
  } catch {
    return null;
  }
}

function findOnPath(name: string, searchPath: string): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

function probe(program: string, args: string[]): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    let err = '';
    const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 2000) err += d.toString('utf8');
    });
    child.on('error', (e) => resolve({ ok: false, detail: e.message }));
    child.on('close', (code) => resolve({ ok: code === 0, detail: err.trim() }));
  });
}

const cache = new Map<string, Promise<SandboxInfo>>();

/**
 * The sandbox this machine gives, found once per platform and PATH (a trial run of bwrap, which
 * fails where user namespaces are switched off) and remembered for the life of the process.
 */
export function detectSandbox(platform: NodeJS.Platform, opts: DetectOptions = {}): Promise<SandboxInfo> {
  if (opts.force === 'none' || process.env.THREADLINE_SANDBOX === 'none')
    return Promise.resolve({ kind: 'none', reason: 'disabled' });
  const searchPath = opts.path ?? process.env.PATH ?? '';
  const key = `${platform}\u0000${searchPath}`;
  let hit = cache.get(key);
  if (!hit) {
    hit = detect(platform, searchPath);
    cache.set(key, hit);
  }
  return hit;
}

async function detect(platform: NodeJS.Platform, searchPath: string): Promise<SandboxInfo> {
  if (platform === 'darwin') {
    try {
      accessSync(SEATBELT_PROGRAM, constants.X_OK);
      return { kind: 'seatbelt', program: SEATBELT_PROGRAM };
    } catch {
      return { kind: 'none', reason: 'seatbelt_missing' };
    }
  }
  if (platform !== 'linux') return { kind: 'none', reason: 'unsupported_platform' };
  const program = findOnPath('bwrap', searchPath);
  if (program === null) return { kind: 'none', reason: 'bwrap_missing' };
  // With the seccomp helper first; without it (a kernel or AppArmor that refuses its nested user
  // namespace), bwrap alone, and the helper's failure said in `detail`.
  const socat = findOnPath('socat', searchPath);
  const helper = seccompHelper();
  if (helper !== null) {
    const caps = capabilityArgs(true);
    const withHelper = await probe(program, probeArgs(caps, helper));
    if (withHelper.ok) return { kind: 'bwrap', program, seccomp: helper, caps, socat };
    const caps0 = capabilityArgs(false);
    const bare = await probe(program, probeArgs(caps0, null));
    if (!bare.ok) return { kind: 'none', reason: 'bwrap_broken', detail: bare.detail };
    return {
      kind: 'bwrap',
      program,
      seccomp: null,
      caps: caps0,
      socat,
      detail: `seccomp helper: ${withHelper.detail}`,
    };
  }
  const caps = capabilityArgs(false);
  const trial = await probe(program, probeArgs(caps, null));
  if (!trial.ok) return { kind: 'none', reason: 'bwrap_broken', detail: trial.detail };
  return { kind: 'bwrap', program, seccomp: null, caps, socat, detail: `no seccomp helper for ${process.arch}` };
}
