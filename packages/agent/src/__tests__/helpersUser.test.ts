// The explore role's boundary as an unprivileged user (issue 39): CI runs as root, which writes
// anywhere, so the host runs as another user, in a folder that user owns. An explore helper's
// write is stopped (by the read-only sandbox, or refused where there is none); a work helper's,
// under the same rules, goes through: the boundary is the role's, not the file permissions'.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import { testUser } from '@threadline/fake-llm/testUser';
import type { HelperSummary, SessionSummary, StoredMessage } from '@threadline/protocol';
import { Host, repoRoot } from './hostProcess';
import { isHelperRequest, taskOf } from './helpersScript';

const until = (pred: () => Promise<boolean>, what: string) =>
  vi.waitFor(async () => expect(await pred(), `timed out waiting for ${what}`).toBe(true), {
    timeout: 30_000,
    interval: 50,
  });

let llm: FakeLlm | null = null;
let host: Host | null = null;
afterAll(async () => {
  await host?.kill();
  await llm?.close();
});

describe.skipIf(process.platform === 'win32')('explore helpers as an unprivileged user', () => {
  it('cannot write the folder the user owns; a work helper can', async () => {
    const user = testUser();
    const dir = user.tempDir('tl-helpers-user-');
    const work = path.join(dir, 'project');
    mkdirSync(work);
    user.own(work);
    user.reach(repoRoot, process.execPath);
    llm = await startFakeLlm({
      defaultReply: (req): FakeReply => {
        const last = req.messages.at(-1);
        if (isHelperRequest(req as never)) {
          if (last?.role === 'tool') return { content: `done: ${String(last.content).slice(0, 300)}` };
          const file = taskOf(req as never).includes('explore') ? 'by-explore.txt' : 'by-work.txt';
          return { toolCalls: [{ name: 'shell', arguments: { command: `echo made > ${file}` } }] };
        }
        if (last?.role === 'tool') return { content: 'both ended' };
        const tasks = [
          { task: 'Write as explore.', role: 'explore' },
          { task: 'Write as work.', role: 'work' },
        ];
        return { toolCalls: [{ name: 'delegate', arguments: { tasks } }] };
      },
    });
    host = new Host(path.join(dir, 'threadline.db'), llm.url, dir, {
      argv: user.argv.bind(user),
      env: user.env(process.env, path.join(dir, 'home')),
    });
    await host.ready;
    const session = await host.call<SessionSummary>('sessions.create', { title: 'user', workingFolder: work });
    await host.call('chat.send', { sessionId: session.id, text: 'write something' });
    await until(async () => {
      const list = await host!.call<HelperSummary[]>('helpers.list', { sessionId: session.id });
      return list.length === 2 && list.every((h) => h.status === 'done');
    }, 'both helpers to end');
    const [explorer, worker] = await host.call<HelperSummary[]>('helpers.list', { sessionId: session.id });
    // The host's policy is auto (fixtures/host.ts): only the role stands between the explorer and the folder.
    expect(existsSync(path.join(work, 'by-work.txt'))).toBe(true);
    expect(existsSync(path.join(work, 'by-explore.txt'))).toBe(false);
    const result = (await host.call<StoredMessage[]>('messages.list', { sessionId: explorer!.id })).find(
      (m) => m.role === 'tool',
    )!;
    expect(result.content).toMatch(/Read-only file system|^Error: refused: this helper only reads/);
    expect(worker!.report).toContain('exit code: 0');
    // A host process as another user, and real sandboxed commands: tens of seconds on a busy machine.
  }, 120_000);
});
