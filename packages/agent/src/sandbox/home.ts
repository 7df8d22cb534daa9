import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';

/**
 * What a sandboxed command sees of the home folder: nothing, except what toolchains need to run
 * (read-only) and the folders the user adds in Settings (read-only). In place of the home folder
 * it gets a folder of its own per session (writable, thrown away with the runtime), so a tool that
 * writes its settings or caches under `~` works and leaves nothing in the user's home.
 *
 * The list, relative to the home folder. What is in it: language runtimes and version managers,
 * the package caches of the package managers (read-only: an install reads what is cached; one
 * that must write a cache gets it in the session's home, see SANDBOX_CACHE_ENV), the global git
 * ignore file. The git identity comes as a config of its own with only `user.name` and
 * `user.email` (sandboxGitConfig). Credential places under these folders stay hidden
 * (workspace/reach.ts CREDENTIAL_PLACES, hidden after these are mounted).
 */
export const SANDBOX_HOME_READ_ONLY: readonly string[] = Object.freeze([
  // version managers and runtimes
  '.nvm',
  '.volta',
  '.fnm',
  '.local/share/fnm',
  '.bun',
  '.deno',
  '.pyenv',
  '.local/share/uv',
  '.local/pipx',
  '.conda',
  'miniconda3',
  'anaconda3',
  'miniforge3',
  '.pixi',
  '.rbenv',
  '.gem',
  '.asdf',
  '.tool-versions',
  '.local/share/mise',
  '.config/mise',
  '.sdkman',
  '.jdks',
  '.rustup',
  '.cargo',
  'go',
  '.ghcup',
  '.cabal',
  '.stack',
  '.opam',
  '.elan',
  '.nimble',
  '.dotnet',
  '.local/bin',
  '.local/lib',
  // package caches (read-only)
  '.npm/_cacache',
  '.cache/pip',
  '.cache/uv',
  '.cache/yarn',
  '.yarn/berry/cache',
  '.local/share/pnpm',
  '.cache/pnpm',
  '.m2/repository',
  '.gradle/caches',
  '.gradle/wrapper',
  '.nuget/packages',
  '.cache/go-build',
  // git: the global ignore file (the identity: sandboxGitConfig)
  '.config/git/ignore',
  '.gitignore_global',
]);

/**
 * Where package managers that must write their cache write it inside the sandbox: the session's
 * home (SANDBOX_HOME_READ_ONLY mounts the user's caches read-only, and npm, pip and go fail or
 * turn their cache off on a read-only one).
 */
export function sandboxCacheEnv(sessionHome: string): Record<string, string> {
  return {
    npm_config_cache: path.join(sessionHome, '.npm'),
    PIP_CACHE_DIR: path.join(sessionHome, '.cache', 'pip'),
    GOCACHE: path.join(sessionHome, '.cache', 'go-build'),
    UV_CACHE_DIR: path.join(sessionHome, '.cache', 'uv'),
    YARN_CACHE_FOLDER: path.join(sessionHome, '.cache', 'yarn'),
  };
}

export interface HomeMount {
  /** Where it is seen inside the sandbox (as typed under the home folder). */
  dest: string;
  /** What is mounted there (where it really leads). */
  src: string;
}

function realOrNull(p: string): string | null {
  try {
    lstatSync(p);
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * The read-only mounts of a home folder's allow-list, of the folders on the user's login PATH that
 * are under the home folder (where their toolchains are, wherever they put them), and of the
 * user's own folders (Settings, absolute or `~/…`), each that exists, mounted from where it really
 * leads.
 */
export function homeReadOnlyMounts(
  home: string,
  userFolders: readonly string[],
  loginPath: string | undefined = undefined,
): HomeMount[] {
  const out: HomeMount[] = [];
  const seen = new Set<string>();
  const add = (dest: string): void => {
    const src = realOrNull(dest);
    if (src === null || seen.has(dest)) return;
    seen.add(dest);
    out.push({ dest, src });
  };
  for (const rel of SANDBOX_HOME_READ_ONLY) add(path.join(home, rel));
  for (const dir of (loginPath ?? '').split(path.delimiter))
    if (path.isAbsolute(dir) && dir.startsWith(home + path.sep)) add(path.normalize(dir));
  for (const f of userFolders) add(f.startsWith('~') ? path.join(home, f.slice(1)) : path.resolve(f));
  return out;
}
