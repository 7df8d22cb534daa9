// Checkpoints tell the truth after any sequence of undo and redo (issue 37 item 9): a turn whose
// changes a forced undo of an older turn took out says so, and says "applied" again once they
// are back. The real turn loop, fake-llm over HTTP, a real git.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
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

  it.each([3437, 2026, 9])(
    'any sequence of undo and redo: every state agrees with the files (sequence %i)',
    async (start) => {
      const folder = await setup();
      const content = (f: string): string | null =>
        existsSync(path.join(folder, f)) ? readFileSync(path.join(folder, f), 'utf8') : null;
      // Four turns, each writing two of three files (b.txt and c.txt new): what each started from and left is known.
      const plan = [
        ['a.txt', 'b.txt'],
        ['b.txt', 'c.txt'],
        ['a.txt', 'c.txt'],
        ['a.txt', 'b.txt'],
      ];
      const now = new Map<string, string | null>([['a.txt', 'v0\n']]);
      const turns: { before: Map<string, string | null>; after: Map<string, string> }[] = [];
      for (const [i, touched] of plan.entries()) {
        const before = new Map(touched.map((f) => [f, now.get(f) ?? null]));
        const after = new Map(touched.map((f) => [f, `turn ${i} ${f}\n`]));
        await h.turn(turnOf(...touched.map((f) => call('write_file', { path: f, content: after.get(f) }))));
        for (const [f, c] of after) now.set(f, c);
        turns.push({ before, after });
      }
      const list = async (): Promise<Checkpoint[]> =>
        (await h.api['checkpoints.list']({ sessionId: h.sessionId })).checkpoints;
      const ids = (await list()).map((c) => c.id);
      expect(ids).toHaveLength(plan.length);

      // A fixed pseudo-random sequence (the same every run): undo a turn that is in, redo one that is undone.
      let seed = start;
      const next = (): number => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      const undone = new Set<number>();
      const done: string[] = [];
      for (let step = 0; step < 16; step++) {
        const i = Math.floor(next() * ids.length);
        const t = turns[i]!;
        if (undone.has(i)) {
          await h.api['checkpoints.redo']({ checkpointId: ids[i]!, force: true });
          undone.delete(i);
          done.push(`redo ${i}`);
          for (const [f, c] of t.after) expect(content(f), done.join(', ')).toBe(c);
        } else {
          await h.api['checkpoints.restore']({ checkpointId: ids[i]!, force: true });
          undone.add(i);
          done.push(`undo ${i}`);
          for (const [f, c] of t.before) expect(content(f), done.join(', ')).toBe(c);
        }
        const states = (await list()).map((c) => c.state);
        for (const [j, s] of states.entries()) {
          const why = `turn ${j} after ${done.join(', ')}`;
          const { after } = turns[j]!;
          const allIn = [...after].every(([f, c]) => content(f) === c);
          // Undone is the user's word, and only theirs.
          expect(s === 'undone', why).toBe(undone.has(j));
          if (s === 'undone') continue;
          // Every change of the turn as it left it: applied.
          if (allIn) expect(s, why).toBe('applied');
          // Applied: each of its files is as it left it, or a later turn not undone changed it since.
          if (s === 'applied')
            for (const [f, c] of after)
              expect(
                content(f) === c || states.some((o, k) => k > j && o !== 'undone' && turns[k]!.after.has(f)),
                `${why}: ${f}`,
              ).toBe(true);
          // Overwritten: some change of it is no longer in the files.
          if (s === 'overwritten') expect(allIn, why).toBe(false);
        }
      }
      // The sequence went through both kinds of state change.
      expect(done.some((d) => d.startsWith('redo'))).toBe(true);
    },
  );
});
