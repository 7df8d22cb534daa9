import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import { lastIsTool } from './harness';
import type { AppEvent, RpcResult, SessionSummary, StoredMessage } from '@threadline/protocol';
import { openStore } from '@threadline/store';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'tl-crash-'));
const dbFile = path.join(dir, 'threadline.db');
let llm: FakeLlm;

/** One host process speaking JSON lines. */
class Host {
  readonly child: ChildProcessWithoutNullStreams;
  private nextId = 1;
  private readonly waiting = new Map<number, (r: RpcResult<unknown>) => void>();
  private readonly eventWaiters: { pred: (e: AppEvent) => boolean; resolve: () => void }[] = [];
  readonly ready: Promise<void>;

  constructor() {
    this.child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(here, 'fixtures/host.ts'), dbFile, llm.url, dir],
      { cwd: repoRoot },
    );
    let buf = '';
    let onReady: () => void = () => {};
    this.ready = new Promise((r) => (onReady = r));
    this.child.stdout.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const msg = JSON.parse(line) as { type: string; id?: number; result?: RpcResult<unknown>; event?: AppEvent };
        if (msg.type === 'ready') onReady();
        if (msg.type === 'result') this.waiting.get(msg.id!)?.(msg.result!);
        if (msg.type === 'event') for (const w of this.eventWaiters.filter((x) => x.pred(msg.event!))) w.resolve();
      }
    });
  }

  async call<T>(route: string, input: unknown): Promise<T> {
    const id = this.nextId++;
    const res = new Promise<RpcResult<unknown>>((r) => this.waiting.set(id, r));
    this.child.stdin.write(JSON.stringify({ id, route, input }) + '\n');
    const r = await res;
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    return r.data as T;
  }

  event(pred: (e: AppEvent) => boolean): Promise<void> {
    return new Promise((resolve) => this.eventWaiters.push({ pred, resolve }));
  }

  kill(): Promise<void> {
    return new Promise((r) => {
      this.child.on('exit', () => r());
      this.child.kill('SIGKILL');
    });
  }
}

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
    let host = new Host();
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
    host = new Host();
    await host.ready;
    const done = idle();
    await host.call('chat.send', { sessionId: session.id, text: 'third' });
    await done;
    const history = await host.call<StoredMessage[]>('messages.list', { sessionId: session.id });
    expect(history.map((m) => m.content).slice(0, 5)).toEqual(committed.map((m) => m.content));
    expect(history.at(-1)?.content).toBe('answer to third');
    await host.kill();
    // Two host processes, each compiling the runtime through tsx: slow on a busy machine.
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
