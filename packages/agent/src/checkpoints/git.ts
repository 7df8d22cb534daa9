import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * git as the checkpoints run it: an async child process (never on the thread that answers
 * requests) with a clean environment (no system or global config, HOME pointed at a neutral
 * folder) and hooks, fsmonitor, line-ending conversion and signing off on every call, so nothing
 * the working folder or the user's configuration says can run a program or change a byte.
 */

export class GitError extends Error {}

/** One git command of a checkpoint runs at most this long. */
export const GIT_TIMEOUT_MS = 60_000;

/** Runs git with `env`; stdout as a Buffer. */
export function runGit(
  git: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  input?: Buffer,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      git,
      [
        '-c',
        'core.hooksPath=/dev/null',
        '-c',
        'core.fsmonitor=false',
        '-c',
        'core.autocrlf=false',
        '-c',
        'core.safecrlf=false',
        '-c',
        'core.quotePath=false',
        '-c',
        'commit.gpgSign=false',
        ...args,
      ],
      // A git that waits (it opens a FIFO planted as a .gitignore, which blocks until a writer
      // comes) is killed, so the turn and its Stop never wait on it for ever.
      {
        env,
        cwd,
        encoding: 'buffer',
        maxBuffer: 256 * 1024 * 1024,
        windowsHide: true,
        timeout: GIT_TIMEOUT_MS,
        killSignal: 'SIGKILL',
      },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (err.killed && err.signal === 'SIGKILL') {
            reject(
              new GitError(
                `git ${args[0]} did not finish within ${GIT_TIMEOUT_MS / 1000} s and was stopped (a named pipe in the folder, e.g. a .gitignore that is a FIFO, makes git wait for ever)`,
              ),
            );
            return;
          }
          const detail = stderr.toString('utf8').trim() || err.message;
          reject(
            code === 'ENOENT' ? Object.assign(new GitError(`git not found: ${git}`), { code }) : new GitError(detail),
          );
          return;
        }
        resolve(stdout);
      },
    );
    if (input) child.stdin?.end(input);
    else child.stdin?.end();
  });
}

/** The environment every checkpoint git runs with (plus GIT_DIR / GIT_WORK_TREE in `extra`). */
export function cleanEnv(neutralHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    // Only what git needs to find itself; nothing of the user's git environment (GIT_DIR…).
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...(process.env.SYSTEMROOT ? { SYSTEMROOT: process.env.SYSTEMROOT } : {}),
    HOME: neutralHome,
    XDG_CONFIG_HOME: neutralHome,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(neutralHome, 'empty-gitconfig'),
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_AUTHOR_NAME: 'Threadline',
    GIT_AUTHOR_EMAIL: 'checkpoints@threadline.invalid',
    GIT_COMMITTER_NAME: 'Threadline',
    GIT_COMMITTER_EMAIL: 'checkpoints@threadline.invalid',
    ...extra,
  };
}

/** Whether `git` runs at all (answered once per runtime by the caller). */
export async function gitVersion(git: string, neutralHome: string): Promise<string | null> {
  try {
    await fs.mkdir(neutralHome, { recursive: true });
    const out = await runGit(git, ['--version'], cleanEnv(neutralHome), neutralHome);
    return out.toString('utf8').trim();
  } catch {
    return null;
  }
}

/** A NUL-separated output as its records. */
export function splitZ(out: Buffer): string[] {
  return out
    .toString('utf8')
    .split('\0')
    .filter((s) => s !== '');
}

/** Paths as NUL-terminated records for a `-z --stdin` / `--pathspec-file-nul` input. */
export function nulList(paths: readonly string[]): Buffer {
  return Buffer.from(paths.map((p) => `${p}\0`).join(''), 'utf8');
}
