// Checkpoints tell the truth after any sequence of undo and redo (issue 37 item 9): a turn whose
// changes a forced undo of an older turn took out says so, and says "applied" again once they
// are back. The real turn loop, fake-llm over HTTP, a real git.
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Checkpoint } from '@threadline/protocol';
import { call, callsFromText, turnOf } from './checkpointTurns';
import { startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

async function setup(): Promise<string> {
  h = await startHarness({ llm: { defaultReply: callsFromText }, settings: { approvalPolicy: 'auto' } });
  const folder = path.join(realpathSync(h.dir), 'work');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'a.txt'), 'v0\n');
  await h.api['sessions.update']({ id: h.sessionId, workingFolder: folder });
  return folder;
}

const states = async (): Promise<string[]> =>
  (await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints.map((c) => c.state);

describe('checkpoint states after undo and redo', () => {
  it('a forced undo of an older turn and its redo leave the newer turn "no longer in the files" until it is redone', async () => {
    const folder = await setup();
    const read = () => readFileSync(path.join(folder, 'a.txt'), 'utf8');
    await h.turn(turnOf(call('write_file', { path: 'a.txt', content: 'v1\n' })));
    await h.turn(
      turnOf(
        call('write_file', { path: 'a.txt', content: 'v2\n' }),
        call('write_file', { path: 'b.txt', content: 'new\n' }),
      ),
    );
    const [t1, t2] = (await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints as [
      Checkpoint,
      Checkpoint,
    ];
    expect(await states()).toEqual(['applied', 'applied']);

    // Turn 1's undo needs force (turn 2 changed a.txt since); it takes turn 2's edit of a.txt out.
    expect((await h.api['checkpoints.restore']({ checkpointId: t1.id, force: false })).applied).toBe(false);
    await h.api['checkpoints.restore']({ checkpointId: t1.id, force: true });
    expect(read()).toBe('v0\n');
    expect(await states()).toEqual(['undone', 'overwritten']);
    // The renderer hears it: the newer turn's row changes too.
    expect(
      h.events.some(
        (e) => e.type === 'checkpoint.updated' && e.checkpoint.id === t2.id && e.checkpoint.state === 'overwritten',
      ),
    ).toBe(true);

    // Turn 1 redone: a.txt is v1, still not what turn 2 left.
    await h.api['checkpoints.redo']({ checkpointId: t1.id, force: false });
    expect(read()).toBe('v1\n');
    expect(await states()).toEqual(['applied', 'overwritten']);

    // Turn 2 redone (a.txt is again what it started from, so no force): both are in the files.
    const redone = await h.api['checkpoints.redo']({ checkpointId: t2.id, force: false });
    expect(redone).toMatchObject({ applied: true, checkpoint: { state: 'applied' } });
    expect(read()).toBe('v2\n');
    expect(await states()).toEqual(['applied', 'applied']);

    // Undoing turn 2 alone leaves turn 1 in the files (a.txt is v1 again).
    await h.api['checkpoints.restore']({ checkpointId: t2.id, force: false });
    expect(read()).toBe('v1\n');
    expect(await states()).toEqual(['applied', 'undone']);
  });

  it('an overwritten turn can be undone too, and a turn of another session in the folder is told the truth', async () => {
    const folder = await setup();
    await h.turn(turnOf(call('write_file', { path: 'a.txt', content: 'v1\n' })));
    const other = await h.api['sessions.create']({ title: 'other', workingFolder: folder });
    await h.api['chat.send']({
      sessionId: other.id,
      text: turnOf(call('write_file', { path: 'a.txt', content: 'v2\n' })),
    });
    await h.api.idle(other.id);
    const [t1] = (await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints as [Checkpoint];
    const [theirs] = (await h.api['checkpoints.list']({ sessionId: other.id })).checkpoints as [Checkpoint];
    await h.api['checkpoints.restore']({ checkpointId: t1.id, force: true });
    const told = (await h.api['checkpoints.list']({ sessionId: other.id })).checkpoints[0]!;
    expect(told.state).toBe('overwritten');
    // Its undo puts the file back as it was before it (v1), over the undo of turn 1 (v0): asked first.
    expect((await h.api['checkpoints.restore']({ checkpointId: theirs.id, force: false })).changedSince).toEqual([
      'a.txt',
    ]);
    await h.api['checkpoints.restore']({ checkpointId: theirs.id, force: true });
    expect(readFileSync(path.join(folder, 'a.txt'), 'utf8')).toBe('v1\n');
    expect((await h.api['checkpoints.list']({ sessionId: other.id })).checkpoints[0]!.state).toBe('undone');
    // v1 is what turn 1 left: its change is in the files again, but the user undid it, so it stays undone.
    expect(await states()).toEqual(['undone']);
  });
});
