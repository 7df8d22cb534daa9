import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';

/**
 * The user's login environment (PATH from nvm, pyenv, asdf…), read once from their login shell
 * outside the sandbox, so that every command can run through a plain `bash -c`: a login profile
 * then neither costs its seconds per command nor prints into what the model reads ("pyenv: cannot
 * rehash"). The shell runs as VS Code runs it (`-i -l -c`, so a profile that sets PATH in .bashrc
 * counts), with no input, its output after a random marker taken as `env -0`, within a deadline;
 * a shell that fails or hangs leaves the app's own environment, and says why.
 */
export interface LoginEnv {
  env: NodeJS.ProcessEnv;
  /** Why the app's own environment is used instead (null: the login shell's). */
  failed: string | null;
  /** How long the login shell took, in ms. */
  tookMs: number;
}

export interface LoginEnvOptions {
  /** The user's shell (default: $SHELL, else /bin/bash). */
  shell?: string;
  /** The environment the shell starts with (default: this process's). */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

const SHELLS = new Set(['bash', 'zsh', 'sh', 'dash', 'ksh', 'fish']);
const cache = new Map<string, Promise<LoginEnv>>();

/** Resolved once per shell and HOME for the life of the process. */
export function loginEnv(opts: LoginEnvOptions = {}): Promise<LoginEnv> {
  const base = opts.env ?? process.env;
  const shell = opts.shell ?? base.SHELL ?? '/bin/bash';
  const key = `${shell}\u0000${base.HOME ?? ''}`;
  let hit = cache.get(key);
  if (!hit) {
    hit = readLoginEnv(shell, base, opts.timeoutMs ?? 10_000);
    cache.set(key, hit);
  }
  return hit;
}

function readLoginEnv(shell: string, base: NodeJS.ProcessEnv, timeoutMs: number): Promise<LoginEnv> {
  const started = Date.now();
  const fallback = (why: string): LoginEnv => ({ env: base, failed: why, tookMs: Date.now() - started });
  if (!SHELLS.has(basename(shell))) return Promise.resolve(fallback(`unknown shell ${shell}`));
  const mark = randomBytes(12).toString('hex');
  const script = `printf '%s' '${mark}'; command env -0`;
  return new Promise((resolve) => {
    let out = Buffer.alloc(0);
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(shell, ['-i', '-l', '-c', script], {
        env: base,
        stdio: ['ignore', 'pipe', 'ignore'],
        detached: process.platform !== 'win32',
      });
    } catch (err) {
      resolve(fallback((err as Error).message));
      return;
    }
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      resolve(fallback(`the login shell took more than ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.stdout?.on('data', (d: Buffer) => {
      if (out.length < 4 * 1024 * 1024) out = Buffer.concat([out, d]);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve(fallback(err.message));
    });
    child.on('close', () => {
      clearTimeout(timer);
      const text = out.toString('utf8');
      const at = text.indexOf(mark);
      if (at < 0) {
        resolve(fallback('the login shell printed no environment'));
        return;
      }
      const env: NodeJS.ProcessEnv = {};
      for (const entry of text.slice(at + mark.length).split('\0')) {
        const eq = entry.indexOf('=');
        if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
      if (!env.PATH) {
        resolve(fallback('the login shell printed no PATH'));
        return;
      }
      // The shell's own bookkeeping is not the user's environment.
      for (const k of ['_', 'SHLVL', 'PWD', 'OLDPWD', 'PS1', 'PS2', 'PROMPT_COMMAND']) delete env[k];
      resolve({ env, failed: null, tookMs: Date.now() - started });
    });
  });
}
