import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import { lastIsTool } from './harness';
import { Host } from './hostProcess';
import type { SessionSummary, StoredMessage } from '@threadline/protocol';
import { openStore } from '@threadline/store';

const dir = mkdtempSync(path.join(tmpdir(), 'tl-crash-'));
const dbFile = path.join(dir, 'threadline.db');
let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm({
    defaultReply: (req): FakeReply => {
      if (req.lastUserText.startsWith('sleep') && !lastIsTool(req))
        return { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 30' } }] };
      if (lastIsTool(req)) return { content: 'tool done' };
      return { content: `answer to ${req.lastUserText}` };
    },
  });
});
afterAll(async () => {
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a host killed mid-turn', () => {
  it('loses no committed message and continues after a restart', async () => {
    let host = new Host(dbFile, llm.url, dir);
    await host.ready;
    const session = await host.call<SessionSummary>('sessions.create', { title: 'crash' });
    const idle = () => host.event((e) => e.type === 'session.updated' && !e.busy && e.sessionId === session.id);
    for (const text of ['first', 'second']) {
      const done = idle();
      await host.call('chat.send', { sessionId: session.id, text });
      await done;
    }
    // Killed while a tool runs: the user message is committed, the step is not.
    const toolStarted = host.event((e) => e.type === 'tool.requested');
    await host.call('chat.send', { sessionId: session.id, text: 'sleep please' });
    await toolStarted;
    await host.kill();
    const committed = await readHistory(session.id);
    expect(committed.map((m) => m.content)).toEqual([
      'first',
      'answer to first',
      'second',
      'answer to second',
      'sleep please',
    ]);

    // Restarted: everything committed is there and the session goes on (the interrupted user
    // message stays in history; the next turn's view is still a valid request).
    host = new Host(dbFile, llm.url, dir);
    await host.ready;
    const done = idle();
    await host.call('chat.send', { sessionId: session.id, text: 'third' });
    await done;
    const history = await host.call<StoredMessage[]>('messages.list', { sessionId: session.id });
    expect(history.map((m) => m.content).slice(0, 5)).toEqual(committed.map((m) => m.content));
    expect(history.at(-1)?.content).toBe('answer to third');
    await host.kill();
    // Two host processes start and stop: on a busy machine that alone takes tens of seconds.
  }, 120_000);
});

async function readHistory(sessionId: string): Promise<StoredMessage[]> {
  const store = openStore({ file: dbFile, env: {} });
  try {
    return store.messages.list(sessionId);
  } finally {
    store.close();
  }
}
