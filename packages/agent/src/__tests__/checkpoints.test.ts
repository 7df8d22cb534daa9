// Checkpoints (issue 23 point 3): fake-llm over real HTTP asks for the calls, the real turn loop
// runs them (write_file, the shell's `rm`), and a real git keeps the shadow repository.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckpointNoticeMeta } from '@threadline/protocol';
import { call, callsFromText, hashes } from './checkpointTurns';
import { startHarness, type Harness, type HarnessOptions } from './harness';
import { filesystemStdio } from './mcp/servers';

let h: Harness;
afterEach(async () => h?.close());

async function setup(api: HarnessOptions['api'] = {}): Promise<string> {
  h = await startHarness({
    llm: { defaultReply: callsFromText },
    settings: { approvalPolicy: 'auto' },
    api: { checkpoints: { caps: { maxFileBytes: 1024 } }, ...api },
  });
  const folder = path.join(realpathSync(h.dir), 'work');
  mkdirSync(folder, { recursive: true });
  // The folder is the user's own repository: its .git must come out of all this byte for byte.
  execFileSync('git', ['init', '-q'], { cwd: folder });
  // Planted to run code or change bytes if the shadow git ever read them: it must not.
  writeFileSync(path.join(folder, '.git', 'config'), `[core]\n\tfsmonitor = touch ${path.join(folder, 'PWNED')}\n`, {
    flag: 'a',
  });
  writeFileSync(path.join(folder, '.gitattributes'), '*.txt text eol=crlf filter=evil\n');
  writeFileSync(path.join(folder, 'edit.txt'), 'line one\nline two\n');
  writeFileSync(path.join(folder, 'gone.txt'), 'to be removed\n');
  writeFileSync(path.join(folder, 'keep.txt'), 'never touched\n');
  writeFileSync(path.join(folder, '.gitignore'), 'ignored.log\n');
  writeFileSync(path.join(folder, 'ignored.log'), 'log v1\n');
  writeFileSync(path.join(folder, 'big.bin'), Buffer.alloc(4096, 7));
  await h.api['sessions.update']({ id: h.sessionId, workingFolder: folder });
  return folder;
}

const THE_TURN = JSON.stringify([
  call('write_file', { path: 'edit.txt', content: 'line one\nline 2 changed\n' }),
  call('write_file', { path: 'sub/created.txt', content: 'brand new\n' }),
  call('shell', { command: 'rm gone.txt && echo more >> ignored.log && head -c 2048 /dev/zero >> big.bin' }),
]);

describe('checkpoints', () => {
  it('undoes a turn to the byte and redoes it; ignored and over-cap files are left alone and said', async () => {
    const folder = await setup();
    const before = hashes(folder);
    await h.turn(THE_TURN);
    const after = hashes(folder);
    expect(after['sub/created.txt']).toBeDefined();
    expect(after['gone.txt']).toBeUndefined();

    const listed = await h.api['checkpoints.list']({ sessionId: h.sessionId });
    expect(listed.available).toBe(true);
    expect(listed.checkpoints).toHaveLength(1);
    const cp = listed.checkpoints[0]!;
    expect(cp.state).toBe('applied');
    expect(cp.files).toEqual([
      { path: 'edit.txt', status: 'modified', added: 1, removed: 1 },
      { path: 'gone.txt', status: 'deleted', added: 0, removed: 1 },
      { path: 'sub/created.txt', status: 'added', added: 1, removed: 0 },
    ]);
    expect(cp.filesChanged).toBe(3);
    expect(cp.skipped.tooLarge).toEqual(['big.bin']);
    expect(cp.skipped.maxFileBytes).toBe(1024);
    // The chip sits after the turn's last reply.
    expect(h.history().find((m) => m.id === cp.anchorId)?.content).toBe('done');
    expect(h.events.some((e) => e.type === 'checkpoint.updated' && e.checkpoint.id === cp.id)).toBe(true);
    // The shadow repository is in the data folder; nothing new appeared in the working folder.
    expect(existsSync(path.join(h.dir, 'data', 'checkpoints'))).toBe(true);

    const diff = await h.api['checkpoints.diff']({ checkpointId: cp.id });
    const edit = diff.files.find((f) => f.path === 'edit.txt')!;
    expect(edit.patch).toContain('-line two');
    expect(edit.patch).toContain('+line 2 changed');

    const undone = await h.api['checkpoints.restore']({ checkpointId: cp.id, force: false });
    expect(undone).toMatchObject({ applied: true, changedSince: [], checkpoint: { state: 'undone' } });
    const afterUndo = hashes(folder);
    // Every file as before the turn, the user's .git included…
    const { ['ignored.log']: logUndo, ['big.bin']: bigUndo, ...restUndo } = afterUndo;
    const { ['ignored.log']: logBefore, ['big.bin']: bigBefore, ...restBefore } = before;
    expect(restUndo).toEqual(restBefore);
    expect(existsSync(path.join(folder, 'sub'))).toBe(false);
    // …but the .gitignored file and the one over the cap stay as the turn left them.
    expect(logUndo).toBe(after['ignored.log']);
    expect(bigUndo).toBe(after['big.bin']);
    expect(logUndo).not.toBe(logBefore);
    expect(bigUndo).not.toBe(bigBefore);
    await expect(h.api['checkpoints.restore']({ checkpointId: cp.id, force: false })).rejects.toMatchObject({
      code: 'conflict',
    });

    // History gained a note the model reads; the next request carries it.
    const note = h.history().at(-1)!;
    expect(note.kind).toBe('checkpoint_notice');
    expect(note.visibility).toEqual({ user: true, agent: true });
    expect(note.meta as CheckpointNoticeMeta).toMatchObject({ action: 'undo', checkpointId: cp.id });
    await h.turn('[]');
    const lastRequest = JSON.stringify(h.llm.chatRequests().at(-1)!.body);
    expect(lastRequest).toContain('The user undid the file changes of turn 1');
    expect(lastRequest).toContain('sub/created.txt (removed again)');
    // The Markdown export shows it as a note, not as something the user wrote.
    const md = (await h.api['sessions.export']({ id: h.sessionId, format: 'markdown' })).content;
    expect(md).toContain('> The user undid the file changes of turn 1');
    expect(md).not.toContain('## User\n\nThe user undid');

    const redone = await h.api['checkpoints.redo']({ checkpointId: cp.id, force: false });
    expect(redone.checkpoint.state).toBe('applied');
    expect(hashes(folder)).toEqual(after);
    expect(existsSync(path.join(folder, 'PWNED'))).toBe(false);
    expect(h.history().at(-1)!.meta as CheckpointNoticeMeta).toMatchObject({ action: 'redo' });
  });

  it('does not overwrite a file changed since the turn unless asked to', async () => {
    const folder = await setup();
    const before = hashes(folder);
    await h.turn(THE_TURN);
    writeFileSync(path.join(folder, 'edit.txt'), 'the user edited it after the turn\n');
    const afterEdit = hashes(folder);
    const [cp] = (await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints;
    const refused = await h.api['checkpoints.restore']({ checkpointId: cp!.id, force: false });
    expect(refused).toMatchObject({ applied: false, changedSince: ['edit.txt'], checkpoint: { state: 'applied' } });
    expect(hashes(folder)).toEqual(afterEdit);
    expect(h.history().some((m) => m.kind === 'checkpoint_notice')).toBe(false);
    const forced = await h.api['checkpoints.restore']({ checkpointId: cp!.id, force: true });
    expect(forced).toMatchObject({ applied: true, changedSince: ['edit.txt'], checkpoint: { state: 'undone' } });
    const { ['ignored.log']: _l, ['big.bin']: _b, ...rest } = hashes(folder);
    const { ['ignored.log']: _l0, ['big.bin']: _b0, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
  });

  it('undo marks stale what CFPM memory learned about the undone files', async () => {
    h = await startHarness({
      llm: { defaultReply: callsFromText },
      settings: { approvalPolicy: 'auto', compaction: { strategy: 'cfpm_memory_v1' } },
    });
    const folder = path.join(realpathSync(h.dir), 'work');
    mkdirSync(folder, { recursive: true });
    await h.api['sessions.update']({ id: h.sessionId, workingFolder: folder });
    await h.turn(JSON.stringify([call('write_file', { path: 'report.md', content: '# Report\n' })]));
    const about = async () =>
      (await h.api['memory.facts.list']({ sessionId: h.sessionId })).filter((f) => f.content.includes('report.md'));
    const learned = await about();
    expect(learned.length).toBeGreaterThan(0);
    expect(learned.every((f) => f.status === 'active')).toBe(true);
    const [cp] = (await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints;
    await h.api['checkpoints.restore']({ checkpointId: cp!.id, force: false });
    expect(existsSync(path.join(folder, 'report.md'))).toBe(false);
    expect((await about()).map((f) => f.status)).toEqual(learned.map(() => 'stale'));
  });

  it("covers what an MCP tool changed in the folder (the filesystem server's write_file)", async () => {
    const folder = await setup();
    const before = hashes(folder);
    await h.api['mcp.servers.upsert']({
      name: 'files',
      transport: 'stdio',
      ...filesystemStdio(folder),
      // Its folder (in the OS sandbox, the one it may write): the session's working folder.
      cwd: folder,
      autoApprove: true,
    });
    const target = path.join(folder, 'edit.txt');
    await h.turn(JSON.stringify([call('files__write_file', { path: target, content: 'written by MCP\n' })]));
    expect(readFileSync(target, 'utf8')).toBe('written by MCP\n');
    const [cp] = (await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints;
    expect(cp?.files.map((f) => [f.path, f.status])).toEqual([['edit.txt', 'modified']]);
    await h.api['checkpoints.restore']({ checkpointId: cp!.id, force: false });
    expect(hashes(folder)).toEqual(before);
  });

  it("never snapshots the app's own data folder or database, even inside the working folder", async () => {
    await setup();
    // The harness keeps the database in its temp dir and the data folder under it: work there.
    await h.api['sessions.update']({ id: h.sessionId, workingFolder: realpathSync(h.dir) });
    await h.turn(JSON.stringify([call('write_file', { path: 'one.txt', content: '1' })]));
    await h.turn(JSON.stringify([call('write_file', { path: 'two.txt', content: '2' })]));
    const { checkpoints } = await h.api['checkpoints.list']({ sessionId: h.sessionId });
    expect(checkpoints.map((c) => c.files.map((f) => f.path))).toEqual([['one.txt'], ['two.txt']]);
  });

  it('takes no snapshot for a turn of read-only tools', async () => {
    const folder = await setup();
    await h.turn(JSON.stringify([call('read_file', { path: 'edit.txt' }), call('list_dir', { path: '.' })]));
    expect(existsSync(path.join(h.dir, 'data', 'checkpoints'))).toBe(false);
    expect(h.llm.chatRequests()).toHaveLength(2);
    expect((await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints).toEqual([]);
    expect(readFileSync(path.join(folder, 'edit.txt'), 'utf8')).toBe('line one\nline two\n');
  });

  it('a turn that writes nothing new records no checkpoint', async () => {
    await setup();
    await h.turn(JSON.stringify([call('shell', { command: 'echo hello' })]));
    expect((await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints).toEqual([]);
  });

  it('where git is missing: one sentence, once, and the tools still run', async () => {
    const folder = await setup({ checkpoints: { git: '/nonexistent/no-such-git' } });
    await h.turn(THE_TURN);
    await h.turn(JSON.stringify([call('write_file', { path: 'again.txt', content: 'x' })]));
    expect(readFileSync(path.join(folder, 'again.txt'), 'utf8')).toBe('x');
    const notes = h.history().filter((m) => m.kind === 'checkpoint_notice');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.visibility).toEqual({ user: true, agent: false });
    expect((notes[0]!.meta as CheckpointNoticeMeta).action).toBe('unavailable');
    expect(notes[0]!.content).toContain('git is not installed');
    const listed = await h.api['checkpoints.list']({ sessionId: h.sessionId });
    expect(listed).toEqual({ available: false, checkpoints: [] });
  });
});
