// A decoy link neither defeats a turn's checkpoint nor makes undo or redo read, write or delete
// outside the working folder (issue 34 item 4). The real turn loop and shell, a real git; the
// folder outside is hashed before and after.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Checkpoint } from '@threadline/protocol';
import { call, callsFromText, hashes, turnOf } from './checkpointTurns';
import { startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

/** The working folder, and a folder outside it (another project) with files of the same names. */
async function setup(): Promise<{ folder: string; outside: string }> {
  h = await startHarness({ llm: { defaultReply: callsFromText }, settings: { approvalPolicy: 'auto' } });
  const root = realpathSync(h.dir);
  const folder = path.join(root, 'work');
  const outside = path.join(root, 'otherproj');
  mkdirSync(folder, { recursive: true });
  mkdirSync(path.join(outside, 'deep'), { recursive: true });
  writeFileSync(path.join(outside, 'passwd'), 'the other project\n');
  writeFileSync(path.join(outside, 'out.txt'), 'theirs\n');
  writeFileSync(path.join(outside, 'deep', 'notes.txt'), 'their notes\n');
  writeFileSync(path.join(folder, 'important.txt'), 'precious\n');
  await h.api['sessions.update']({ id: h.sessionId, workingFolder: folder });
  return { folder, outside };
}

const checkpoints = async (): Promise<Checkpoint[]> =>
  (await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints;

describe('checkpoints and links a command planted', () => {
  it('a folder replaced by a link to elsewhere keeps the turn its undo; nothing outside is touched', async () => {
    const { folder, outside } = await setup();
    const theirs = hashes(outside);
    await h.turn(turnOf(call('write_file', { path: 'sub/passwd', content: 'mine\n' })));
    const before = hashes(folder);
    // The decoy: `sub` now leads to the other project, which has a file of the same name; the
    // same turn clobbers a file of the folder.
    await h.turn(
      turnOf(call('shell', { command: `rm -rf sub && ln -s ${outside} sub && echo clobbered > important.txt` })),
    );
    expect(h.events.some((e) => e.type === 'error')).toBe(false);
    const [, second] = await checkpoints();
    expect(second?.files.map((f) => [f.path, f.status])).toEqual([
      ['important.txt', 'modified'],
      ['sub', 'added'],
      ['sub/passwd', 'deleted'],
    ]);
    expect(hashes(outside)).toEqual(theirs);

    const undone = await h.api['checkpoints.restore']({ checkpointId: second!.id, force: false });
    expect(undone.applied).toBe(true);
    expect(hashes(folder)).toEqual(before);
    expect(lstatSync(path.join(folder, 'sub')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(folder, 'sub', 'passwd'), 'utf8')).toBe('mine\n');
    expect(hashes(outside)).toEqual(theirs);

    await h.api['checkpoints.redo']({ checkpointId: second!.id, force: false });
    expect(readlinkSync(path.join(folder, 'sub'))).toBe(outside);
    expect(readFileSync(path.join(folder, 'important.txt'), 'utf8')).toBe('clobbered\n');
    expect(hashes(outside)).toEqual(theirs);
  });

  it('undo never deletes through a folder that became a link, nor writes through a file that became one', async () => {
    const { folder, outside } = await setup();
    const theirs = hashes(outside);
    await h.turn(
      turnOf(
        call('write_file', { path: 'gen/out.txt', content: 'generated\n' }),
        call('write_file', { path: 'notes.txt', content: 'turn notes\n' }),
        call('write_file', { path: 'docs/deep/notes.txt', content: 'doc notes\n' }),
      ),
    );
    const [cp] = await checkpoints();
    // After the turn, something (a later command, another program) plants links where the turn's files were.
    rmSync(path.join(folder, 'gen'), { recursive: true });
    symlinkSync(outside, path.join(folder, 'gen'));
    rmSync(path.join(folder, 'notes.txt'));
    symlinkSync(path.join(outside, 'out.txt'), path.join(folder, 'notes.txt'));
    rmSync(path.join(folder, 'docs'), { recursive: true });
    symlinkSync(outside, path.join(folder, 'docs'));
    const refused = await h.api['checkpoints.restore']({ checkpointId: cp!.id, force: false });
    expect(refused.applied).toBe(false);
    // Behind a link, gen/out.txt and docs/deep/notes.txt are not in the folder any more (as undo
    // wants them); notes.txt is a link now, not the turn's file: only it is said to have changed.
    expect(refused.changedSince).toEqual(['notes.txt']);
    await h.api['checkpoints.restore']({ checkpointId: cp!.id, force: true });
    // The other project is as it was: gen/out.txt was not deleted through `gen`, docs' notes not
    // through `docs`, and notes.txt's link was replaced, not written through.
    expect(hashes(outside)).toEqual(theirs);
    expect(readlinkSync(path.join(folder, 'gen'))).toBe(outside);
    expect(existsSync(path.join(folder, 'notes.txt'))).toBe(false);

    await h.api['checkpoints.redo']({ checkpointId: cp!.id, force: true });
    expect(hashes(outside)).toEqual(theirs);
    // The turn's files are back as real files in real folders (the links in their way replaced).
    expect(readFileSync(path.join(folder, 'gen', 'out.txt'), 'utf8')).toBe('generated\n');
    expect(lstatSync(path.join(folder, 'gen')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(folder, 'notes.txt'), 'utf8')).toBe('turn notes\n');
    expect(lstatSync(path.join(folder, 'docs')).isDirectory()).toBe(true);
  });
});
