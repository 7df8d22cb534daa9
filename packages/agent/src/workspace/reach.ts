import { realpathSync, statSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { AppError } from '@threadline/protocol';
import { protectedReason, type ProtectedReason } from './protected';
import { expandHome, resolveReal } from './resolve';

/**
 * Where a file tool call leads, relative to what the session may touch. `protected`: a write to a
 * path that makes code run later (workspace/protected.ts).
 */
export type Zone = 'inside' | 'outside' | 'credential' | 'protected' | 'data';

/** Why a credential place asks (the approval card says it). */
export type CredentialReason = 'credential_store' | 'env_file' | 'key_file' | 'process_env';
export type AccessReason = CredentialReason | ProtectedReason;

export interface Reach {
  /** The session's working folder, resolved. */
  folder: string;
  home: string;
  /** The app's data folder (database, -wal/-shm, secret.key, backups), resolved. */
  dataDir: string;
  /** The database file itself, wherever it lives (its -wal, -shm and .corrupt-* copies share the prefix). */
  dbFile: string;
  platform: NodeJS.Platform;
  /** Files and folders configured MCP servers execute (workspace/protected.ts launchTargets). */
  launch?: readonly string[];
}

/**
 * Places that hold credentials, relative to the home folder: a call that touches them asks even
 * inside the working folder (and even under an `auto` policy). Compared by where they really
 * lead, so a symlinked `~/.ssh` (→ ~/dotfiles/ssh) is still `~/.ssh`. The OS sandbox hides the
 * same places (sandbox/paths.ts): credential stores, shell histories, other agents' credentials,
 * browser profiles.
 */
export const CREDENTIAL_PLACES: readonly string[] = Object.freeze([
  '.ssh',
  '.aws',
  '.gnupg',
  '.netrc',
  '_netrc',
  '.kube',
  '.docker/config.json',
  '.git-credentials',
  '.config/git/credentials',
  '.config/gh',
  '.config/hub',
  '.config/glab-cli',
  '.pgpass',
  '.my.cnf',
  '.mylogin.cnf',
  '.config/gcloud',
  '.azure',
  '.oci',
  '.config/doctl',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.s3cfg',
  '.boto',
  '.config/rclone',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.composer/auth.json',
  '.config/composer/auth.json',
  '.password-store',
  '.local/share/keyrings',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.config/pip/pip.conf',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.nuget/NuGet',
  '.config/op',
  '.config/sops',
  '.huggingface',
  '.cache/huggingface/token',
  '.config/configstore',
  '.pki',
  // Shell and tool histories: a typed `export OPENAI_API_KEY=…` stays there.
  '.bash_history',
  '.zsh_history',
  '.zhistory',
  '.histfile',
  '.sh_history',
  '.local/share/fish/fish_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.rediscli_history',
  '.lesshst',
  '.viminfo',
  // Other agents' credentials and sessions.
  '.claude',
  '.claude.json',
  '.codex',
  '.gemini',
  '.config/github-copilot',
  '.cursor',
  '.continue',
  '.aider',
  '.config/Code/User/globalStorage',
  // Browser profiles (cookies, saved passwords) and mail.
  '.mozilla',
  '.thunderbird',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  'snap/firefox',
  'snap/chromium',
  '.var/app',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
  'Library/Safari',
  'Library/Cookies',
  'Library/Keychains',
]);

/** A `.env*` file (or an `.envs/` folder) by its name: what the sandbox hides in the working folder too. */
export function isEnvFileName(name: string): boolean {
  return /^\.env/i.test(name) || name.toLowerCase() === '.envs';
}

/** Files that hold a credential wherever they are: `.env*`, an `.envs/` folder, keys and certificates. */
function credentialByName(p: string): CredentialReason | null {
  const base = path.basename(p);
  if (/^\.env/i.test(base)) return 'env_file';
  if (p.split(/[\\/]+/).some((s) => s.toLowerCase() === '.envs')) return 'env_file';
  if (/\.(pem|key|p12|pfx)$/i.test(base)) return 'key_file';
  // ssh keys by their usual names: id_rsa, id_ed25519, id_ecdsa_sk…; not `id_utils.py`
  if (/^id_[A-Za-z0-9_-]+$/.test(base)) return 'key_file';
  return null;
}

/** Case-insensitive file systems (macOS, Windows by default) compare folded. */
function fold(p: string, platform: NodeJS.Platform): string {
  return platform === 'darwin' || platform === 'win32' ? p.toLowerCase() : p;
}

export function within(p: string, dir: string, platform: NodeJS.Platform): boolean {
  const a = fold(p, platform);
  const d = fold(dir, platform);
  return a === d || a.startsWith(d.endsWith(path.sep) ? d : d + path.sep);
}

/** The credential places, each where it really leads and as written (the home folder resolved too). */
function resolvePlaces(home: string, realHome: string, onStep?: (dir: string, next: string) => void): string[] {
  const out = new Set<string>();
  for (const rel of CREDENTIAL_PLACES) {
    out.add(path.join(home, rel));
    try {
      out.add(resolveReal(path.join(realHome, rel), '/', home, onStep));
    } catch {
      // a link loop: the place as written still counts
    }
  }
  return [...out];
}

/**
 * What a folder's entries were when the places were resolved: any entry added, removed, renamed
 * or replaced (a new `~/.aws` symlink) changes its ctime, which no program can set back.
 */
function statOf(dir: string): BigIntStats | undefined | 'error' {
  try {
    return statSync(dir, { bigint: true, throwIfNoEntry: false });
  } catch {
    return 'error';
  }
}
function stamp(st: ReturnType<typeof statOf>): string {
  if (st === 'error') return '!';
  return st ? `${st.dev}:${st.ino}:${st.mode}:${st.mtimeNs}:${st.ctimeNs}` : '-';
}

interface PlacesEntry {
  realHome: string;
  places: string[];
  /** Every folder whose entries the resolution looked at (the walk to the home folder aside), stamped. */
  dirs: Map<string, string>;
}

/**
 * The resolved credential places per home folder, kept while nothing they were resolved through
 * changed: resolving them walks ~120 paths (hundreds of lstat) at every check, while checking that
 * none of the few folders they pass through changed is a stat each. The home folder itself is
 * checked by its real path. A folder changed within `racyMs` of filling is not trusted (its
 * timestamp may not move again for a change in the same clock tick): those places are resolved
 * again at every check until it is older.
 */
export class CredentialPlaces {
  private readonly entries = new Map<string, PlacesEntry>();
  /** How many times the places were resolved (tests count it). */
  resolutions = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly racyMs = 2000,
  ) {}

  of(home: string): string[] {
    let realHome: string;
    try {
      realHome = realpathSync.native(home);
    } catch {
      return this.resolve(home, resolveReal(home, '/', home)); // no home folder: nothing to keep
    }
    const hit = this.entries.get(home);
    if (hit && hit.realHome === realHome && [...hit.dirs].every(([dir, st]) => stamp(statOf(dir)) === st))
      return hit.places;
    this.entries.delete(home);
    const started = BigInt(this.now() - this.racyMs) * 1_000_000n;
    const seen = new Set<string>();
    // The steps that walk down to the home folder are what realHome stands for.
    const onStep = (dir: string, next: string): void => {
      if (!within(realHome, next, 'linux')) seen.add(dir);
    };
    const places = this.resolve(home, realHome, onStep);
    const dirs = new Map<string, string>();
    for (const dir of seen) {
      const st = statOf(dir);
      if (st === 'error') return places; // not kept: resolved again at the next check
      // A missing folder on the way (or a file): its parent's entries, stamped too, say when it appears.
      if (!st?.isDirectory()) continue;
      if (st.ctimeNs >= started || st.mtimeNs >= started) return places; // changed just now: not kept
      dirs.set(dir, stamp(st));
    }
    if (this.entries.size >= 8) this.entries.clear();
    this.entries.set(home, { realHome, places, dirs });
    return places;
  }

  private resolve(home: string, realHome: string, onStep?: (dir: string, next: string) => void): string[] {
    this.resolutions += 1;
    return resolvePlaces(home, realHome, onStep);
  }
}

/** The process's one cache of resolved credential places (every check goes through it). */
export const credentialPlacesCache = new CredentialPlaces();

function credentialPlaces(reach: Pick<Reach, 'home'>): string[] {
  return credentialPlacesCache.of(reach.home);
}

function credentialReason(p: string, reach: Reach, places: readonly string[]): CredentialReason | null {
  const byName = credentialByName(p);
  if (byName) return byName;
  // /proc/<pid>/environ, cmdline, mem…: the app's own environment (API keys) is one read away.
  if (reach.platform === 'linux' && within(p, '/proc', reach.platform)) return 'process_env';
  return places.some((place) => within(p, place, reach.platform)) ? 'credential_store' : null;
}

function isCredential(p: string, reach: Reach): boolean {
  return credentialReason(p, reach, credentialPlaces(reach)) !== null;
}

function isData(p: string, reach: Reach): boolean {
  if (within(p, reach.dataDir, reach.platform)) return true;
  return fold(p, reach.platform).startsWith(fold(reach.dbFile, reach.platform));
}

export interface PathClass {
  path: string;
  zone: Zone;
  /** For `credential` and `protected`: why (a code the approval card words). */
  reason?: AccessReason;
}

/**
 * The resolved path of a tool's path argument and its zone. Both the path as typed (lexically
 * resolved) and where it really leads are checked, so neither a symlink into the data folder nor
 * a `.env` link to an innocent-looking file slips through; the credential places are compared by
 * where they really lead too. `write`: the call changes the path, so protected paths count.
 */
export function classifyPath(input: string, reach: Reach, opts: { write?: boolean } = {}): PathClass {
  const real = resolveReal(input, reach.folder, reach.home);
  const typed = path.resolve(reach.folder, expandHome(input, reach.home));
  if (isData(real, reach) || isData(typed, reach)) return { path: real, zone: 'data' };
  // Both ask under every policy; for a write the card says that it would run code (`.envrc`).
  if (opts.write) {
    const launch = reach.launch ?? [];
    const prot = protectedReason(real, reach.platform, launch) ?? protectedReason(typed, reach.platform, launch);
    if (prot) return { path: real, zone: 'protected', reason: prot };
  }
  const places = credentialPlaces(reach);
  const cred = credentialReason(real, reach, places) ?? credentialReason(typed, reach, places);
  if (cred) return { path: real, zone: 'credential', reason: cred };
  return { path: real, zone: within(real, reach.folder, reach.platform) ? 'inside' : 'outside' };
}

/**
 * A working folder as the user typed it, resolved and checked: absolute (or `~/…`), not the home
 * folder itself or a file-system root (everything would be "inside"), not in the app's data
 * folder or a credential place, and a folder if it exists. Throws AppError('invalid_input').
 */
export function checkWorkingFolder(raw: string, reach: Omit<Reach, 'folder'>): string {
  const expanded = expandHome(raw.trim(), reach.home);
  if (!path.isAbsolute(expanded))
    throw new AppError('invalid_input', `The working folder must be an absolute path or start with ~ (got "${raw}").`);
  const folder = resolveReal(expanded, reach.home, reach.home);
  const home = resolveReal(reach.home, '/', reach.home);
  const full = { ...reach, folder };
  if (fold(folder, reach.platform) === fold(home, reach.platform))
    throw new AppError(
      'invalid_input',
      'The working folder cannot be your whole home folder; choose a folder inside it.',
    );
  if (path.parse(folder).root === folder)
    throw new AppError('invalid_input', 'The working folder cannot be the root of a drive; choose a folder.');
  if (isData(folder, full))
    throw new AppError('invalid_input', "The working folder cannot be inside Threadline's own data folder.");
  if (isCredential(folder, full))
    throw new AppError('invalid_input', 'The working folder cannot be a place where credentials are kept.');
  let isDir = true;
  try {
    isDir = statSync(folder).isDirectory();
  } catch {
    // does not exist yet: created on first use
  }
  if (!isDir) throw new AppError('invalid_input', `The working folder ${folder} is a file, not a folder.`);
  return folder;
}

/** ~/Threadline unless Settings name another one. */
export const DEFAULT_FOLDER = '~/Threadline';

/**
 * The zone of a path with no symbolic link in it (an entry found walking a resolved folder without
 * following links): the same rules as classifyPath without resolving anything again.
 */
export function zoneOfResolved(p: string, reach: Reach): Zone {
  if (isData(p, reach)) return 'data';
  if (isCredential(p, reach)) return 'credential';
  return within(p, reach.folder, reach.platform) ? 'inside' : 'outside';
}
