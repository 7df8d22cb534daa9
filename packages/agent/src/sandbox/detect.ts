import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
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

/** The arguments of the trial run: the same namespaces a real command gets, running `true`. */
const PROBE_ARGS = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--unshare-net',
  '--unshare-pid',
  '--die-with-parent',
  '--new-session',
  '--',
  'true',
];

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

function probe(program: string): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    let err = '';
    const child = spawn(program, PROBE_ARGS, { stdio: ['ignore', 'ignore', 'pipe'] });
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
  const trial = await probe(program);
  if (!trial.ok) return { kind: 'none', reason: 'bwrap_broken', detail: trial.detail };
  return { kind: 'bwrap', program };
}
