// What the request-loop benches (stall.ts, hostile.ts) set up alike: fake-llm in a process of its
// own with a rules file, and a real server process (`tsx apps/server/src/cli.ts`, model gpt-4o so
// the o200k tokenizer counts) talking to it over HTTP, with a typed RPC over its token. Both
// processes start detached and end with their whole group (tsx's child with them, and a server
// blocked on a FIFO, which does not end on SIGTERM).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { rpcBody } from '../src/__tests__/rpcBody';

/** The checkout whose server runs: THREADLINE_BENCH_ROOT (e.g. main's, for the figure before) or this one. */
export const benchRoot = (): string =>
  resolve(process.env.THREADLINE_BENCH_ROOT ?? resolve(import.meta.dirname, '../../..'));

const tsxOf = (root: string): string => join(root, 'node_modules/.bin/tsx');

/** Ends a process started detached and everything it started. */
export function killGroup(c: ReturnType<typeof spawn>): void {
  try {
    if (c.pid !== undefined) process.kill(-c.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Resolves with the first match of `pattern` in the child's output; rejects when it exits first. */
function announced(child: ReturnType<typeof spawn>, pattern: RegExp, name: string): Promise<string> {
  return new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = pattern.exec(out);
      if (m) ok(m[1]!);
    });
    child.on('close', (code) => fail(new Error(`${name} exited ${code}`)));
  });
}

/** fake-llm answering by the rules written to `rulesFile` (its `{ rules: [...] }`). */
export async function startFakeLlm(
  root: string,
  rulesFile: string,
  rules: unknown[],
): Promise<{ child: ReturnType<typeof spawn>; url: string }> {
  writeFileSync(rulesFile, JSON.stringify({ rules }));
  const child = spawn(tsxOf(root), [join(root, 'packages/fake-llm/src/cli.ts'), '--port', '0', '--rules', rulesFile], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await announced(child, /fake-llm listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/, 'fake-llm');
  return { child, url };
}

export interface BenchServer {
  child: ReturnType<typeof spawn>;
  /** A route's answer; throws with the route's message on a refusal, or when the server has exited. */
  rpc: <T>(route: string, input: unknown, signal?: AbortSignal) => Promise<T>;
  origin: string;
  token: string;
  close: () => Promise<void>;
}

/** A server on its own data folder under `dir`, using fake-llm at `llmUrl`; `env` is added to its environment. */
export async function startServer(
  root: string,
  llmUrl: string,
  dir: string,
  env: Record<string, string> = {},
): Promise<BenchServer> {
  const staticDir = join(dir, 'web');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html>');
  const child = spawn(
    tsxOf(root),
    [join(root, 'apps/server/src/cli.ts'), '--static-dir', staticDir, '--data-dir', join(dir, 'data')],
    {
      cwd: root,
      detached: true,
      env: {
        ...process.env,
        THREADLINE_PROVIDER_URL: llmUrl,
        THREADLINE_MODEL: 'gpt-4o',
        THREADLINE_CONTEXT_WINDOW: '128000',
        OPENAI_API_KEY: 'bench-key',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const { origin, searchParams } = new URL(await announced(child, /running at (http:\/\/\S+)\n/, 'server'));
  const token = searchParams.get('token')!;
  const rpc = async <T>(route: string, input: unknown, signal?: AbortSignal): Promise<T> => {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode} before ${route}`);
    const { body: sent, headers } = rpcBody(input);
    const res = await fetch(`${origin}/api/rpc/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, ...headers },
      body: sent,
      ...(signal ? { signal } : {}),
    });
    const body = (await res.json()) as { ok: boolean; data: T; error?: { message: string } };
    if (!body.ok) throw new Error(`${route}: ${body.error?.message}`);
    return body.data;
  };
  return {
    child,
    rpc,
    origin,
    token,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const closed = new Promise((ok) => child.once('close', ok));
      killGroup(child);
      await closed;
    },
  };
}
