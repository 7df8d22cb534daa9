import { afterAll, describe, expect, it, vi } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeLlm, type ChatRequestView, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import type { ChatState, StoredMessage } from '@threadline/protocol';

// Issue 25: the runtime never blocks on work. The server is a real process (`tsx cli.ts`), the
// provider fake-llm over real HTTP, the tokenizer o200k (model gpt-4o). While one session reads a
// 1 MB file of one repeated character and another sends a 0.95 MB paste of one, a third session's
// chat.state and chat.send answer. Nothing here measures time: it asserts that they answer. The
// counting and cutting of the megabytes run on the work pool (packages/context/src/worker).
const root = resolve(import.meta.dirname, '../../../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const temp = mkdtempSync(join(tmpdir(), 'tl-responsive-'));
const children: ChildProcess[] = [];
let llm: FakeLlm | null = null;
afterAll(async () => {
  // SIGTERM, which tsx passes on to the server it started (a SIGKILL would stop tsx alone and
  // leave the server running); SIGKILL only if it has not closed after a while.
  await Promise.all(
    children
      .filter((c) => c.exitCode === null && c.signalCode === null)
      .map(
        (c) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => c.kill('SIGKILL'), 10_000);
            c.once('close', () => {
              clearTimeout(force);
              done();
            });
            c.kill('SIGTERM');
          }),
      ),
  );
  await llm?.close();
  rmSync(temp, { recursive: true, force: true });
});

const lastOf = (req: ChatRequestView) => req.messages.at(-1);

describe('a runtime under heavy input', () => {
  it("answers a third session's chat.state and chat.send while two sessions count megabytes", async () => {
    llm = await startFakeLlm({
      defaultReply: (req): FakeReply => {
        const last = lastOf(req);
        if (last?.role === 'tool') return { content: 'The file is one long line.' };
        if (last?.role === 'user' && String(last.content ?? '').startsWith('READ BIG'))
          return { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] };
        return { content: 'ok' };
      },
    });
    const staticDir = join(temp, 'web');
    mkdirSync(staticDir);
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Threadline</title>');
    const child = spawn(tsx, ['apps/server/src/cli.ts', '--static-dir', staticDir, '--data-dir', join(temp, 'data')], {
      cwd: root,
      env: {
        ...process.env,
        THREADLINE_PROVIDER_URL: llm.url,
        THREADLINE_MODEL: 'gpt-4o',
        THREADLINE_CONTEXT_WINDOW: '128000',
        OPENAI_API_KEY: 'test-key',
        // The work pool says when a worker is ready: the loads below must run on it.
        THREADLINE_POOL_LOG: '1',
      },
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const url = await new Promise<string>((ok, fail) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /running at (http:\/\/\S+)\n/.exec(out);
        if (m) ok(m[1]!);
      });
      child.on('close', (code) => fail(new Error(`server exited ${code}`)));
    });
    const { origin, searchParams } = new URL(url);
    const token = searchParams.get('token')!;
    const rpc = async <T>(route: string, input: unknown): Promise<{ ok: boolean; data: T; error?: unknown }> => {
      const res = await fetch(`${origin}/api/rpc/${route}`, {
        method: 'POST',
        // A connection of its own per call: a kept-alive one the server closes after 5 s idle
        // may be picked just as it closes when the machine is busy ("other side closed").
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify(input),
      });
      return (await res.json()) as { ok: boolean; data: T };
    };

    const folder = realpathSync(mkdtempSync(join(temp, 'folder-')));
    writeFileSync(join(folder, 'big.txt'), 'x'.repeat(1_000_000));
    const ids: string[] = [];
    for (const title of ['reads', 'pastes', 'third']) {
      const s = await rpc<{ id: string }>('sessions.create', { title });
      expect(s.ok).toBe(true);
      ids.push(s.data.id);
    }
    const [reader, paster, third] = ids as [string, string, string];
    expect((await rpc('sessions.update', { id: reader, workingFolder: folder })).ok).toBe(true);

    const reading = rpc('chat.send', { sessionId: reader, text: 'READ BIG file please' });
    const pasting = rpc('chat.send', { sessionId: paster, text: 'y'.repeat(950_000) });
    const state = await rpc<ChatState>('chat.state', { sessionId: third });
    const sent = await rpc<{ accepted: boolean }>('chat.send', { sessionId: third, text: 'hello' });
    expect(state.ok).toBe(true);
    expect(sent).toMatchObject({ ok: true, data: { accepted: true } });
    expect((await reading).ok).toBe(true);
    expect((await pasting).ok).toBe(true);

    const idle = async (sessionId: string) => {
      await vi.waitFor(async () => expect((await rpc<ChatState>('chat.state', { sessionId })).data.busy).toBe(false), {
        timeout: 120_000,
        interval: 100,
      });
      return (await rpc<StoredMessage[]>('messages.list', { sessionId })).data;
    };
    // The 1 MB output reached the model cut (head, tail, marker); the full text stays beside it.
    const read = await idle(reader);
    const tool = read.find((m) => m.role === 'tool')!;
    expect(tool.meta?.truncated).toBe(true);
    expect(tool.content).toContain('tokens truncated');
    expect(read.at(-1)!.content).toBe('The file is one long line.');
    // The paste is over half the window: the model got head and tail, the message says so.
    const pasted = await idle(paster);
    expect(pasted[0]!.meta?.truncated).toBe(true);
    expect(pasted[0]!.content!.length).toBeLessThan(950_000);
    expect((await idle(third)).map((m) => m.content)).toEqual(['hello', 'ok']);

    // A 2 MB paste in a new session: kept as head and tail with a marker, the whole text beside it.
    const fresh = await rpc<{ id: string }>('sessions.create', {});
    const big = 'p'.repeat(1_000_000) + 'MIDDLE' + 'q'.repeat(1_000_000);
    expect((await rpc('chat.send', { sessionId: fresh.data.id, text: big })).ok).toBe(true);
    const [user] = await idle(fresh.data.id);
    expect(user!.meta?.truncated).toBe(true);
    expect(user!.content).toMatch(/truncated… \(the full (text|output) can be read with read_tool_output\(id: "/);
    expect(user!.content).toMatch(/^Total output lines: 3\n\npppp/);
    expect(user!.content!.endsWith('qqq')).toBe(true);
    expect((await rpc<{ text: string }>('messages.fullOutput', { id: user!.id })).data.text).toBe(big);
    // The counting and cutting ran on the work pool's worker (started from the TypeScript
    // sources under tsx), not in slices on the request thread.
    expect(stderr).toContain('threadline: work pool: a worker is ready');
    expect(stderr).not.toContain('work pool is off');
  }, 240_000);
});
