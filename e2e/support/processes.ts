import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// e2e is an ES module package: no __dirname.
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const tsxBin = resolve(repoRoot, 'node_modules/.bin/tsx');

export interface Started {
  child: ChildProcess;
  match: RegExpMatchArray;
  output: () => string;
  stop(): Promise<void>;
}

/** Spawns a process and resolves when a line of its stdout matches `ready`. */
export function startProcess(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; ready: RegExp; timeoutMs?: number; name: string },
): Promise<Started> {
  const child = spawn(cmd, args, {
    cwd: repoRoot,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  const stop = () =>
    new Promise<void>((ok) => {
      if (child.exitCode !== null || child.signalCode !== null) return ok();
      child.once('exit', () => ok());
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        ok();
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 3000).unref();
    });
  return new Promise((ok, ko) => {
    const timer = setTimeout(() => {
      void stop();
      ko(new Error(`${opts.name} did not start within ${opts.timeoutMs ?? 30_000} ms. Output:\n${log}`));
    }, opts.timeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      for (const line of log.split('\n')) {
        const m = line.match(opts.ready);
        if (m) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          child.stdout!.on('data', (c: Buffer) => (log += c.toString()));
          return ok({ child, match: m, output: () => log, stop });
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      ko(new Error(`${opts.name} exited with ${code} before it was ready. Output:\n${log}`));
    });
  });
}
