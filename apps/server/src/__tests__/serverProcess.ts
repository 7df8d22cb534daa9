// A real browser-mode server in a process of its own (`tsx apps/server/src/cli.ts`), driven over
// HTTP like a renderer would: what the tests of a runtime under hostile input need, since a
// request thread that blocks must not block the test that watches it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, vi } from 'vitest';
import type { TestUser } from '@threadline/fake-llm/testUser';
import type { ChatState, StoredMessage } from '@threadline/protocol';

export const repoRoot = resolve(import.meta.dirname, '../../../..');

export interface RpcAnswer<T> {
  ok: boolean;
  data: T;
  error?: { code: string; message: string };
}

export interface ServerProcess {
  child: ChildProcess;
  rpc<T>(route: string, input: unknown): Promise<RpcAnswer<T>>;
  /** The route's data; throws with the route's error otherwise. */
  call<T>(route: string, input: unknown): Promise<T>;
  /** Waits (polling chat.state) until the session is idle, then returns its history. */
  idle(sessionId: string): Promise<StoredMessage[]>;
  stderr(): string;
  close(): Promise<void>;
}

export interface ServerOptions {
  llmUrl: string;
  /** A folder of its own for the data folder and the static page. */
  dir: string;
  model?: string;
  env?: Record<string, string>;
  /** Runs the server as this user (an unprivileged one: @threadline/fake-llm/testUser). */
  user?: TestUser;
}

export async function startServerProcess(opts: ServerOptions): Promise<ServerProcess> {
  const staticDir = join(opts.dir, 'web');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Threadline</title>');
  const tsx = join(repoRoot, 'node_modules/.bin/tsx');
  const argv = ['apps/server/src/cli.ts', '--static-dir', staticDir, '--data-dir', join(opts.dir, 'data')];
  const { command, args } = opts.user ? opts.user.argv(tsx, argv) : { command: tsx, args: argv };
  const child = spawn(command, args, {
    cwd: repoRoot,
    env: {
      ...(opts.user ? opts.user.env(process.env, opts.dir) : process.env),
      THREADLINE_PROVIDER_URL: opts.llmUrl,
      THREADLINE_MODEL: opts.model ?? 'fake-model',
      THREADLINE_CONTEXT_WINDOW: '128000',
      OPENAI_API_KEY: 'test-key',
      ...opts.env,
    },
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /running at (http:\/\/\S+)\n/.exec(out);
      if (m) ok(m[1]!);
    });
    child.on('close', (code) => fail(new Error(`server exited ${code}: ${stderr}`)));
  });
  const { origin, searchParams } = new URL(url);
  const token = searchParams.get('token')!;
  const rpc = async <T>(route: string, input: unknown): Promise<RpcAnswer<T>> => {
    const res = await fetch(`${origin}/api/rpc/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    return (await res.json()) as RpcAnswer<T>;
  };
  const call = async <T>(route: string, input: unknown): Promise<T> => {
    const a = await rpc<T>(route, input);
    if (!a.ok) throw new Error(`${route}: ${a.error?.code}: ${a.error?.message}`);
    return a.data;
  };
  return {
    child,
    rpc,
    call,
    async idle(sessionId) {
      await vi.waitFor(async () => expect((await call<ChatState>('chat.state', { sessionId })).busy).toBe(false), {
        timeout: 120_000,
        interval: 100,
      });
      return call<StoredMessage[]>('messages.list', { sessionId });
    },
    stderr: () => stderr,
    close: () =>
      // SIGTERM, which tsx passes on to the server it started (a SIGKILL would stop tsx alone and
      // leave the server running); SIGKILL only if it has not closed after a while.
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((done) => {
            const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('close', () => {
              clearTimeout(force);
              done();
            });
            child.kill('SIGTERM');
          }),
  };
}
