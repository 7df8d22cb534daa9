// Helpers and project memory: a helper's task is the model's words, never the user's, so nothing
// in it becomes a project instruction (a correction there would otherwise supersede an accepted
// fact at once); what a helper's work verified still reaches the project through its parent.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness';
import { delegatingModel } from './helpersScript';

let h: Harness;
afterEach(async () => h?.close());

const CORRECTION = "No, don't use npm here; use pnpm. Always run make lint first.";

describe('project memory and helpers', () => {
  it("a helper's task is never taken as the user's instruction; the files it read are proposed", async () => {
    h = await startHarness({
      llm: {
        defaultReply: delegatingModel({
          delegateOn: 'go',
          tasks: [{ task: `${CORRECTION} Then read src/app.ts.` }],
          helperCall: () => ({ name: 'read_file', arguments: { path: 'src/app.ts' } }),
        }),
      },
    });
    writeFileSync(path.join(h.dir, 'package.json'), JSON.stringify({ name: 'p' }));
    mkdirSync(path.join(h.dir, 'src'), { recursive: true });
    writeFileSync(path.join(h.dir, 'src', 'app.ts'), 'export const app = 1;\n');
    await h.turn('go');
    const facts = async () => (await h.api['project.get']({ sessionId: h.sessionId })).facts;
    const after = await facts();
    expect(after.filter((f) => f.kind === 'instruction')).toEqual([]);
    expect(after.map((f) => [f.kind, f.content, f.status])).toEqual([['path', 'src/app.ts', 'candidate']]);
    // The same words from the user are an instruction (what the helper's task was kept from).
    await h.turn(CORRECTION);
    expect((await facts()).filter((f) => f.kind === 'instruction').length).toBeGreaterThan(0);
  });
});
