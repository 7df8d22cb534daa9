// Issue 35: a hostile folder never freezes, hangs or exhausts the app. The server is a real
// process, the provider fake-llm over real HTTP, the files real: a FIFO made by mkfifo, a real
// symlink loop, a `.git/config` a sandboxed command turned into a FIFO. While each runs, another
// route answers (asserted as "it answers"; how long it took is `pnpm bench`'s, not a test's).
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeLlm, type ChatRequestView, type FakeLlm, type FakeReply } from '@threadline/fake-llm';
import type { ChatState, StoredMessage } from '@threadline/protocol';
import { detectSandbox } from '@threadline/agent';
import { testUser } from '@threadline/fake-llm/testUser';
import { repoRoot, startServerProcess, type ServerProcess } from './serverProcess';

const temp = realpathSync(mkdtempSync(join(tmpdir(), 'tl-hostile-')));
let llm: FakeLlm;
let server: ServerProcess;

/** The user's text is a tool call as JSON (`{"name", "arguments"}`): the model makes it, then says "done". */
const callFromText = (req: ChatRequestView): FakeReply =>
  req.messages.at(-1)?.role === 'tool'
    ? { content: 'done' }
    : { toolCalls: [JSON.parse(req.lastUserText) as { name: string; arguments: Record<string, unknown> }] };

beforeAll(async () => {
  llm = await startFakeLlm({ defaultReply: callFromText });
  server = await startServerProcess({ llmUrl: llm.url, dir: join(temp, 'server') });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await llm?.close();
  rmSync(temp, { recursive: true, force: true });
});

async function sessionIn(folder: string): Promise<string> {
  const { id } = await server.call<{ id: string }>('sessions.create', { workingFolder: folder });
  return id;
}

function send(sessionId: string, name: string, args: Record<string, unknown>) {
  return server.call('chat.send', { sessionId, text: JSON.stringify({ name, arguments: args }) });
}

const toolResult = (history: StoredMessage[]) => history.find((m) => m.role === 'tool')!;

describe('hostile files in the working folder', () => {
  it("a FIFO is one tool error; five reads of FIFOs at once leave another session's read_file and every route answering", async () => {
    const folder = join(temp, 'fifos');
    mkdirSync(folder);
    execFileSync('mkfifo', [join(folder, 'pipe')]);
    writeFileSync(join(folder, 'ok.txt'), 'plain text\n');
    // More than libuv's four pool threads: blocked reads there would starve every file operation.
    const readers = await Promise.all([1, 2, 3, 4, 5].map(() => sessionIn(folder)));
    const other = await sessionIn(folder);
    await Promise.all(readers.map((id) => send(id, 'read_file', { path: 'pipe' })));
    await send(other, 'read_file', { path: 'ok.txt' });
    // Meanwhile another route answers.
    expect((await server.call<ChatState>('chat.state', { sessionId: other })).busy).toBeTypeOf('boolean');
    const fine = toolResult(await server.idle(other));
    expect(fine.content).toContain('1\tplain text');
    for (const id of readers) {
      const history = await server.idle(id);
      const r = toolResult(history);
      expect(r.meta?.status).toBe('error');
      expect(r.content).toMatch(/pipe is a named pipe \(FIFO\), not a regular file/);
      expect(history.at(-1)!.content).toBe('done');
    }
    // write_file onto a FIFO (whose open for writing waits for a reader) and edit_file are refused alike.
    const writer = await sessionIn(folder);
    await send(writer, 'write_file', { path: 'pipe', content: 'x' });
    expect(toolResult(await server.idle(writer)).content).toMatch(/named pipe \(FIFO\)/);
    // list_dir names it for what it is, without opening it.
    const lister = await sessionIn(folder);
    await send(lister, 'list_dir', {});
    expect(toolResult(await server.idle(lister)).content).toBe('ok.txt\npipe|');
  }, 120_000);

  it('a symlink loop is one tool error the model reads, never a failed turn', async () => {
    const folder = join(temp, 'loop');
    mkdirSync(folder);
    symlinkSync('b', join(folder, 'a'));
    symlinkSync('a', join(folder, 'b'));
    const id = await sessionIn(folder);
    for (const [name, args] of [
      ['read_file', { path: 'a' }],
      ['edit_file', { path: 'a/x', old_string: 'x', new_string: 'y' }],
      ['list_dir', { path: 'b' }],
    ] as const) {
      await send(id, name, args);
      const history = await server.idle(id);
      const r = history.findLast((m) => m.role === 'tool')!;
      expect(r.meta?.status).toBe('error');
      expect(r.content).toMatch(/too many symbolic links \(a link loop\)/);
      expect(history.at(-1)!.content).toBe('done');
    }
    const notices = (await server.call<StoredMessage[]>('messages.list', { sessionId: id })).filter(
      (m) => m.kind === 'error_notice',
    );
    expect(notices).toEqual([]);
  }, 120_000);
});

describe('searches of hostile folders and patterns (grep, glob)', () => {
  it('a FIFO named .gitignore, and FIFOs in the tree, never hang grep or glob', async () => {
    const folder = join(temp, 'fifo-gitignore');
    mkdirSync(join(folder, 'src'), { recursive: true });
    execFileSync('mkfifo', [
      join(folder, '.gitignore'),
      join(folder, 'src', '.gitignore'),
      join(folder, 'src', 'pipe.ts'),
    ]);
    writeFileSync(join(folder, 'src', 'a.ts'), 'const needle = 1;\n');
    const id = await sessionIn(folder);
    await send(id, 'grep', { pattern: 'needle' });
    expect(toolResult(await server.idle(id)).content).toContain('src/a.ts:1:const needle = 1;');
    await send(id, 'glob', { pattern: '*.ts' });
    const globbed = (await server.idle(id)).findLast((m) => m.role === 'tool')!;
    expect(globbed.content).toBe('src/a.ts');
    // Named as the path itself, a FIFO is one error saying what it is.
    await send(id, 'grep', { pattern: 'x', path: 'src/pipe.ts' });
    expect((await server.idle(id)).findLast((m) => m.role === 'tool')!.content).toMatch(/named pipe \(FIFO\)/);
  }, 120_000);

  it("a catastrophic regular expression is one tool error; meanwhile routes and another session's grep answer", async () => {
    const folder = join(temp, 'redos');
    mkdirSync(folder);
    writeFileSync(join(folder, 'input.txt'), `${'a'.repeat(48)}!\n`);
    writeFileSync(join(folder, 'other.txt'), 'findable\n');
    const slow = await sessionIn(folder);
    const other = await sessionIn(folder);
    // 2^48 steps for the backtracking engine: it never ends by itself.
    await send(slow, 'grep', { pattern: '^(a+)+$' });
    await vi.waitFor(async () => {
      const st = await server.call<ChatState>('chat.state', { sessionId: slow });
      expect(st.pending.some((p) => p.status === 'running')).toBe(true);
    });
    await send(other, 'grep', { pattern: 'findable' });
    expect(toolResult(await server.idle(other)).content).toContain('other.txt:1:findable');
    const r = toolResult(await server.idle(slow));
    expect(r.meta?.status).toBe('error');
    expect(r.content).toMatch(/grep \/\^\(a\+\)\+\$\/ was stopped: matching one file \(input\.txt\) took over 10 s/);
    // A glob of many stars in a row backtracks alike in the glob engine: stopped the same way.
    writeFileSync(join(folder, 'a'.repeat(40)), '');
    await send(slow, 'glob', { pattern: `${'*a'.repeat(15)}b` });
    const g = (await server.idle(slow)).findLast((m) => m.role === 'tool')!;
    expect(g.content).toMatch(/glob .* was stopped: one step \(a{40}\) took over 10 s/);
  }, 120_000);
});

const sandbox = await detectSandbox('linux');
describe.skipIf(sandbox.kind !== 'bwrap')("git's files made FIFOs by a sandboxed command", () => {
  it('.git/config and .git/HEAD turned into FIFOs never block the request thread', async () => {
    const folder = join(temp, 'fresh-repo');
    mkdirSync(folder);
    const id = await sessionIn(folder);
    // A fresh folder: `.git` did not exist, so its config is not mounted read-only and the
    // command can make it anything. The app then looks at it to decide whether to hold it.
    await send(id, 'shell', {
      command: 'git init -q && rm .git/config .git/HEAD && mkfifo .git/config .git/HEAD && echo made',
    });
    const probe = await sessionIn(temp);
    expect((await server.call<ChatState>('chat.state', { sessionId: probe })).busy).toBe(false);
    const history = await server.idle(id);
    const r = toolResult(history);
    expect(r.content).toContain('made');
    // Not a plain config (not even a file): held for the user, and the model told.
    expect(r.content).toMatch(/\[held\] The command left files .*\.git\/config/);
    expect(existsSync(join(folder, '.git', 'config'))).toBe(false);
    // The folder with its FIFO HEAD is still worked in: instructions looked up, files listed.
    await send(id, 'list_dir', { path: '.git' });
    expect((await server.idle(id)).findLast((m) => m.role === 'tool')!.content).toContain('HEAD|');
  }, 120_000);
});

describe('as an unprivileged user', () => {
  it('a FIFO and a symlink loop in a folder the user owns: one tool error each, another session answered', async () => {
    const user = testUser();
    const dir = user.tempDir('tl-hostile-user-');
    user.reach(repoRoot, process.execPath);
    const folder = join(dir, 'work');
    mkdirSync(folder);
    execFileSync('mkfifo', [join(folder, 'pipe')]);
    symlinkSync('loop', join(folder, 'loop'));
    writeFileSync(join(folder, 'ok.txt'), 'readable by the user\n');
    user.own(dir);
    const own = await startServerProcess({ llmUrl: llm.url, dir, user });
    try {
      const ids = await Promise.all(
        [1, 2, 3, 4, 5, 6, 7].map(
          async () => (await own.call<{ id: string }>('sessions.create', { workingFolder: folder })).id,
        ),
      );
      const calls = (id: string, name: string, args: Record<string, unknown>) =>
        own.call('chat.send', { sessionId: id, text: JSON.stringify({ name, arguments: args }) });
      await Promise.all(ids.slice(0, 5).map((id) => calls(id, 'read_file', { path: 'pipe' })));
      await calls(ids[5]!, 'read_file', { path: 'loop' });
      await calls(ids[6]!, 'grep', { pattern: 'readable' });
      const grep = toolResult(await own.idle(ids[6]!));
      expect(grep.content).toContain('ok.txt:1:readable by the user');
      for (const id of ids.slice(0, 5)) expect(toolResult(await own.idle(id)).content).toMatch(/named pipe \(FIFO\)/);
      expect(toolResult(await own.idle(ids[5]!)).content).toMatch(/a link loop/);
      // It ran as that user: the data folder it made is the user's.
      expect(statSync(join(dir, 'data')).uid).toBe(user.uid);
    } finally {
      await own.close();
    }
  }, 180_000);
});
