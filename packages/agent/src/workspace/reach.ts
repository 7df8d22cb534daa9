import { statSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@threadline/protocol';
import { expandHome, resolveReal } from './resolve';

/** Where a file tool call leads, relative to what the session may touch. */
export type Zone = 'inside' | 'outside' | 'credential' | 'data';

export interface Reach {
  /** The session's working folder, resolved. */
  folder: string;
  home: string;
  /** The app's data folder (database, -wal/-shm, secret.key, backups), resolved. */
  dataDir: string;
  /** The database file itself, wherever it lives (its -wal, -shm and .corrupt-* copies share the prefix). */
  dbFile: string;
  platform: NodeJS.Platform;
}

/**
 * Places that hold credentials, relative to the home folder: a call that touches them asks even
 * inside the working folder (and even under an `auto` policy).
 */
const CREDENTIAL_PLACES = [
  '.ssh',
  '.aws',
  '.gnupg',
  '.netrc',
  '.kube',
  '.docker/config.json',
  '.git-credentials',
  '.config/gcloud',
  '.azure',
  '.npmrc',
  '.pypirc',
];

/** Case-insensitive file systems (macOS, Windows by default) compare folded. */
function fold(p: string, platform: NodeJS.Platform): string {
  return platform === 'darwin' || platform === 'win32' ? p.toLowerCase() : p;
}

export function within(p: string, dir: string, platform: NodeJS.Platform): boolean {
  const a = fold(p, platform);
  const d = fold(dir, platform);
  return a === d || a.startsWith(d.endsWith(path.sep) ? d : d + path.sep);
}

function isCredential(p: string, reach: Reach): boolean {
  if (/^\.env/i.test(path.basename(p))) return true;
  // /proc/<pid>/environ, cmdline, mem…: the app's own environment (API keys) is one read away.
  if (reach.platform === 'linux' && within(p, '/proc', reach.platform)) return true;
  return CREDENTIAL_PLACES.some((rel) => within(p, path.join(reach.home, rel), reach.platform));
}

function isData(p: string, reach: Reach): boolean {
  if (within(p, reach.dataDir, reach.platform)) return true;
  return fold(p, reach.platform).startsWith(fold(reach.dbFile, reach.platform));
}

/**
 * The resolved path of a tool's path argument and its zone. Both the path as typed (lexically
 * resolved) and where it really leads are checked, so neither a symlink into the data folder nor
 * a `.env` link to an innocent-looking file slips through.
 */
export function classifyPath(input: string, reach: Reach): { path: string; zone: Zone } {
  const real = resolveReal(input, reach.folder, reach.home);
  const typed = path.resolve(reach.folder, expandHome(input, reach.home));
  if (isData(real, reach) || isData(typed, reach)) return { path: real, zone: 'data' };
  if (isCredential(real, reach) || isCredential(typed, reach)) return { path: real, zone: 'credential' };
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
