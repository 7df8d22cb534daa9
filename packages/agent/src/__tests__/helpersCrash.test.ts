// kill -9 of the app while two helpers run long commands (issue 39, item 6): the next start loses
// nothing the helpers stored, leaves no process of theirs running, and shows them as they ended.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import { parseNotice, type HelperSummary, type SessionSummary, type StoredMessage } from '@threadline/protocol';
import { openStore } from '@threadline/store';
import { createAppApi } from '../index';
import { isHelperRequest, taskOf } from './helpersScript';
import { gone, Host } from './hostProcess';

const dir = mkdtempSync(path.join(tmpdir(), 'tl-helpers-crash-'));
const dbFile = path.join(dir, 'threadline.db');
const pidFile = (task: string, what: 'shell' | 'sleep') => path.join(dir, `${what}-${task}.pid`);
const TASKS = ['A', 'B'];
let llm: FakeLlm | null = null;
afterAll(async () => {
  for (const t of TASKS)
    for (const w of ['shell', 'sleep'] as const)
      if (existsSync(pidFile(t, w))) gone(Number(readFileSync(pidFile(t, w), 'utf8')), true);
  await llm?.close();
  rmSync(dir, { recursive: true, force: true });
});

const until = (pred: () => boolean, what: string) =>
  vi.waitFor(() => expect(pred(), `timed out waiting for ${what}`).toBe(true), { timeout: 30_000, interval: 25 });

describe.skipIf(process.platform === 'win32')('kill -9 while helpers run', () => {
  it('the next start keeps what they stored, ends their processes and marks them interrupted', async () => {
    // The parent delegates two work tasks; each helper lists the folder, then starts a long command.
    llm = await startFakeLlm({
      defaultReply: (req): FakeReply => {
        const last = req.messages.at(-1);
        if (isHelperRequest(req as never)) {
          const task = taskOf(req as never);
          const steps = req.messages.filter((m) => m.role === 'tool').length;
          if (steps === 0) return { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] };
          const command = `sleep 300 & echo $! > ${pidFile(task, 'sleep')}; echo $$ > ${pidFile(task, 'shell')}; wait`;
          return { toolCalls: [{ name: 'shell', arguments: { command } }] };
        }
        if (last?.role === 'tool') return { content: 'done' };
        return {
          toolCalls: [{ name: 'delegate', arguments: { tasks: TASKS.map((task) => ({ task, role: 'work' })) } }],
        };
      },
    });
    const host = new Host(dbFile, llm.url, dir);
    await host.ready;
    await host.call('settings.set', { patch: { helpers: { concurrency: 2 } } });
    const session = await host.call<SessionSummary>('sessions.create', { title: 'crash', workingFolder: dir });
    await host.call('chat.send', { sessionId: session.id, text: 'run the helpers' });
    await until(
      () => TASKS.every((t) => existsSync(pidFile(t, 'shell')) && existsSync(pidFile(t, 'sleep'))),
      'both commands',
    );
    const pids = TASKS.flatMap((t) =>
      [pidFile(t, 'shell'), pidFile(t, 'sleep')].map((f) => Number(readFileSync(f, 'utf8'))),
    );
    // Both commands are recorded as running (a second reader, WAL) before the crash.
    const watcher = openStore({ file: dbFile, allowPlaintextKeys: true, env: {} });
    try {
      await until(() => watcher.processes.list().length === 2, 'the processes to be recorded');
    } finally {
      watcher.close();
    }
    await host.kill();
    // The crash left their commands running: nothing else would end them.
    expect(pids.map((p) => gone(p))).toEqual([false, false, false, false]);

    const store = openStore({ file: dbFile, allowPlaintextKeys: true, env: {} });
    try {
      const before = store.helpers.list(session.id);
      expect(before.map((x) => x.status)).toEqual(['running', 'running']);
      const stored = new Map(before.map((x) => [x.id, store.messages.list(x.id).map((m) => m.id)]));
      const api = createAppApi({
        store,
        dataDir: path.join(dir, 'data'),
        homeDir: path.join(dir, 'home'),
        cwd: dir,
        loginShell: false,
        emit: () => undefined,
      });
      await until(() => pids.every((p) => gone(p)), 'every leftover process to be ended');
      expect(store.processes.list()).toEqual([]);

      const helpers: HelperSummary[] = await api['helpers.list']({ sessionId: session.id });
      expect(helpers.map((x) => [x.task, x.status])).toEqual([
        ['A', 'interrupted'],
        ['B', 'interrupted'],
      ]);
      for (const x of helpers) {
        // Nothing it stored is lost: its task and its finished step are there, then the marks of the crash.
        const now: StoredMessage[] = await api['messages.list']({ sessionId: x.id });
        expect(now.slice(0, stored.get(x.id)!.length).map((m) => m.id)).toEqual(stored.get(x.id));
        expect(now.map((m) => [m.role, m.kind])).toEqual([
          ['user', 'normal'],
          ['assistant', 'normal'],
          ['tool', 'normal'],
          ['user', 'turn_aborted'],
          ['user', 'error_notice'],
        ]);
        expect(x.toolCalls).toEqual([{ name: 'list_dir', count: 1 }]);
        // Its calls' tokens were stored as they came (the shell's call too, before it ran).
        expect(x.usage.calls).toBe(2);
      }
      // The parent says its helpers were stopped by the crash; they stay out of the sessions list.
      const parent = await api['messages.list']({ sessionId: session.id });
      expect(parent.map((m) => m.kind)).toEqual(['normal', 'turn_aborted', 'error_notice']);
      const notice = parseNotice(parent.at(-1)!.content);
      expect(notice?.type === 'error' && notice.payload).toMatchObject({
        type: 'helpers_interrupted',
        toolCallId: helpers[0]!.toolCallId,
        count: 2,
      });
      expect((await api['sessions.list']({})).map((s) => s.id)).toEqual([session.id]);
      expect((await api['usage.session']({ sessionId: session.id })).helpers?.total.calls).toBe(4);
      // A second start finds nothing left to do.
      createAppApi({
        store,
        dataDir: path.join(dir, 'data'),
        cwd: dir,
        homeDir: path.join(dir, 'home'),
        emit: () => undefined,
      });
      expect((await api['messages.list']({ sessionId: session.id })).length).toBe(parent.length);
      await api.dispose();
    } finally {
      store.close();
    }
    // A host process starts and is killed, then a second start: on a busy machine that alone takes tens of seconds.
  }, 120_000);
});
