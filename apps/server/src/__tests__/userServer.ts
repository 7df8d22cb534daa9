// The real server (`pnpm serve`'s CLI) run as an unprivileged user, with a home of its own, talked
// to over HTTP like the renderer does; a model (fake-llm) that runs a script of shell calls; every
// approval card denied. What the boundary tests of the sandbox stand on.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { vi } from 'vitest';
import { startFakeLlm, type ChatRequestView, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import { testUser, type TestUser } from '@threadline/fake-llm/testUser';
import type { ChatState, StoredMessage } from '@threadline/protocol';

export const REPO = path.resolve(import.meta.dirname, '../../../..');
const TSX = path.join(REPO, 'node_modules', '.bin', 'tsx');

/**
 * A folder for one test, owned by the user and outside the machine's temp folder (which the sandbox
 * empties: a home there would be hidden for that reason alone, proving nothing about the home).
 */
export function userBase(user: TestUser, name: string): string {
  const parent = path.join(REPO, 'node_modules', '.cache');
  mkdirSync(parent, { recursive: true });
  const base = mkdtempSync(path.join(parent, `${name}-`));
  user.own(base);
  user.reach(base);
  return base;
}

export interface UserServer {
  user: TestUser;
  llm: FakeLlm;
  port: number;
  token: string;
  child: ChildProcess;
  stderr: () => string;
  rpc<T>(route: string, input: unknown): Promise<T>;
  /** Sends `text`, denies every card that comes, and resolves when the turn is over. */
  turnDenyingCards(sessionId: string, text: string): Promise<{ denied: number }>;
  toolResults(sessionId: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Runs `command args` as the user (no sandbox: the user's own shell, as after a turn), without
 * blocking this process (a service it talks to may live here).
 */
export function asUserAsync(
  user: TestUser,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const a = user.argv(command, args);
  return new Promise((resolve) => {
    const child = spawn(a.command, a.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs `command args` as the user, blocking: only for what talks to nothing in this process. */
export function asUser(user: TestUser, command: string, args: string[], env: NodeJS.ProcessEnv) {
  const a = user.argv(command, args);
  return spawnSync(a.command, a.args, { encoding: 'utf8', env, timeout: 60_000 });
}

export async function startUserServer(opts: {
  home: string;
  dataDir: string;
  /** What the model does next, given the request (the script of shell calls). */
  reply: (req: ChatRequestView) => FakeReply;
  env?: NodeJS.ProcessEnv;
}): Promise<UserServer> {
  const user = testUser();
  user.reach(REPO, process.execPath, TSX);
  const llm = await startFakeLlm({ defaultReply: opts.reply });
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: opts.home,
    USER: user.name,
    LOGNAME: user.name,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    THREADLINE_PROVIDER_URL: llm.url,
    THREADLINE_MODEL: 'fake-model',
    THREADLINE_CONTEXT_WINDOW: '64000',
    OPENAI_API_KEY: 'test-key',
    ...opts.env,
  };
  const a = user.argv(TSX, [
    'apps/server/src/cli.ts',
    '--port',
    '0',
    '--data-dir',
    opts.dataDir,
    '--static-dir',
    opts.dataDir,
  ]);
  const child = spawn(a.command, a.args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /running at (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('close', (code) => reject(new Error(`the server exited (${code}): ${err}`)));
  });
  const u = new URL(url);
  const port = Number(u.port);
  const token = u.searchParams.get('token')!;
  const rpc = async <T>(route: string, input: unknown): Promise<T> => {
    const res = await fetch(`http://127.0.0.1:${port}/api/rpc/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as { ok: boolean; data?: T; error?: { message: string } };
    if (!body.ok) throw new Error(`${route}: ${body.error?.message ?? res.status}`);
    return body.data as T;
  };
  return {
    user,
    llm,
    port,
    token,
    child,
    stderr: () => err,
    rpc,
    async turnDenyingCards(sessionId, text) {
      let denied = 0;
      await rpc('chat.send', { sessionId, text });
      await vi.waitFor(
        async () => {
          const st = await rpc<ChatState>('chat.state', { sessionId });
          for (const p of st.pending) {
            await rpc('chat.approve', { sessionId, toolCallId: p.toolCall.id, decision: 'deny' });
            denied++;
          }
          if (st.busy || st.pending.length > 0) throw new Error('the turn is still running');
        },
        { timeout: 240_000, interval: 50 },
      );
      return { denied };
    },
    async toolResults(sessionId) {
      const msgs = await rpc<StoredMessage[]>('messages.list', { sessionId });
      return msgs.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
    },
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('close', r));
      }
      await llm.close();
    },
  };
}

/** A model that makes these shell calls one after the other, then says it is done. */
export function scriptedShell(calls: Record<string, unknown>[]): (req: ChatRequestView) => FakeReply {
  return (req) => {
    const done = req.messages.filter((m) => m.role === 'tool').length;
    if (done >= calls.length) return { content: 'finished' };
    return { toolCalls: [{ name: 'shell', arguments: calls[done] }] };
  };
}
