// Crash hygiene with real processes: a host runs a long shell command, is killed with kill -9,
// and the next start ends the command's whole process group and marks the interrupted turn.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import { parseNotice, type RpcResult, type SessionSummary } from '@threadline/protocol';
import { openStore } from '@threadline/store';
import { createAppApi } from '../index';
import { lastIsTool } from './harness';
import { gone } from './hostProcess';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'tl-reap-'));
const dbFile = path.join(dir, 'threadline.db');
const pidFile = path.join(dir, 'shell.pid');
const childPidFile = path.join(dir, 'sleep.pid');
let llm: FakeLlm | null = null;
afterAll(async () => {
  for (const f of [pidFile, childPidFile]) if (existsSync(f)) gone(Number(readFileSync(f, 'utf8')), true);
  await llm?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits (vi.waitFor) until `pred` holds; `what` names it when it never does. */
const until = (pred: () => boolean, what: string) =>
  vi.waitFor(() => expect(pred(), `timed out waiting for ${what}`).toBe(true), { timeout: 15_000, interval: 25 });

const COMMAND = `sleep 300 & echo $! > ${childPidFile}; echo $$ > ${pidFile}; wait`;

describe.skipIf(process.platform === 'win32')('a host killed with kill -9 while a shell command runs', () => {
  it('the next start kills the whole group, marks the turn aborted and names the command', async () => {
    llm = await startFakeLlm({
      defaultReply: (req): FakeReply =>
        lastIsTool(req) ? { content: 'finished' } : { toolCalls: [{ name: 'shell', arguments: { command: COMMAND } }] },
    });
    const host = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'fixtures/host.ts'), dbFile, llm.url, dir],
      {
        cwd: repoRoot,
      },
    );
    const results = new Map<number, RpcResult<unknown>>();
    let buf = '';
    host.stdout.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const m = JSON.parse(buf.slice(0, nl)) as { type: string; id?: number; result?: RpcResult<unknown> };
        buf = buf.slice(nl + 1);
        if (m.type === 'result') results.set(m.id!, m.result!);
      }
    });
    const call = async <T>(id: number, route: string, input: unknown): Promise<T> => {
      host.stdin.write(JSON.stringify({ id, route, input }) + '\n');
      await until(() => results.has(id), route);
      const r = results.get(id)!;
      if (!r.ok) throw new Error(r.error.message);
      return r.data as T;
    };
    const session = await call<SessionSummary>(1, 'sessions.create', { title: 'crash' });
    await call(2, 'chat.send', { sessionId: session.id, text: 'run the long job' });
    await until(() => existsSync(pidFile) && existsSync(childPidFile), 'the command to start');
    const shellPid = Number(readFileSync(pidFile, 'utf8'));
    const sleepPid = Number(readFileSync(childPidFile, 'utf8'));
    // The host records the process right after spawning it; on a busy machine the command can write
    // its pid files first. The crash under test comes after the record (a second reader, WAL).
    const watcher = openStore({ file: dbFile, allowPlaintextKeys: true, env: {} });
    try {
      await until(() => watcher.processes.list().length > 0, 'the process to be recorded');
    } finally {
      watcher.close();
    }

    await new Promise<void>((r) => {
      host.on('exit', () => r());
      host.kill('SIGKILL');
    });
    // The crash left the command running: nothing else would ever end it.
    expect(gone(shellPid)).toBe(false);
    expect(gone(sleepPid)).toBe(false);

    const store = openStore({ file: dbFile, allowPlaintextKeys: true, env: {} });
    try {
      const [row] = store.processes.list();
      expect(row).toMatchObject({ sessionId: session.id, pid: shellPid, pgid: shellPid, command: COMMAND });
      const api = createAppApi({
        store,
        dataDir: path.join(dir, 'data'),
        homeDir: path.join(dir, 'home'),
        cwd: dir,
        loginShell: false,
        emit: () => undefined,
      });
      await until(() => gone(shellPid) && gone(sleepPid), 'the leftover group to be killed');
      expect(store.processes.list()).toEqual([]);
      const history = await api['messages.list']({ sessionId: session.id });
      const tail = history.slice(-2);
      expect(tail[0]).toMatchObject({ kind: 'turn_aborted', visibility: { user: true, agent: true } });
      expect(tail[1]!.kind).toBe('error_notice');
      const notice = parseNotice(tail[1]!.content);
      expect(notice?.type === 'error' && notice.payload).toMatchObject({ type: 'crash_interrupted', command: COMMAND });
      // A second start finds nothing left to do.
      createAppApi({
        store,
        dataDir: path.join(dir, 'data'),
        cwd: dir,
        homeDir: path.join(dir, 'home'),
        emit: () => undefined,
      });
      expect((await api['messages.list']({ sessionId: session.id })).length).toBe(history.length);
      await api.dispose();
    } finally {
      store.close();
    }
  });
});
