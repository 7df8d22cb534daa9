// Project memory end to end: real SQLite, real HTTP to fake-llm, real shell commands and files.
// What a session verified becomes a candidate with its evidence; what the user accepts is in the
// next session's first request in the same folder (by realpath) and nowhere else; what is no longer
// true is marked and left out; a credential never gets in; the block keeps its bytes.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync, symlinkSync, writeFileSync, utimesSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { ChatRequestView, FakeReply } from '@threadline/fake-llm';
import type { ProjectFact, SettingsPatch } from '@threadline/protocol';
import { startHarness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.close());

/**
 * The model of these tests: the user's text is a JSON list of tool calls, made one per request;
 * then it answers "done". Any other text is answered with "ok".
 */
function scriptedModel(req: ChatRequestView): FakeReply {
  let calls: { name: string; arguments: Record<string, unknown> }[];
  try {
    calls = JSON.parse(req.lastUserText) as typeof calls;
    if (!Array.isArray(calls)) return { content: 'ok' };
  } catch {
    return { content: 'ok' };
  }
  const lastUser = req.messages.map((m) => m.role).lastIndexOf('user');
  const done = req.messages.slice(lastUser).filter((m) => m.role === 'tool').length;
  return done < calls.length ? { toolCalls: [calls[done]!] } : { content: 'done' };
}

const run = (command: string) => ({ name: 'shell', arguments: { command } });
const read = (p: string) => ({ name: 'read_file', arguments: { path: p } });

/** A session rule that lets every readable command run, in the sandbox or not. */
async function allowCommands(sessionId: string): Promise<void> {
  await h.api['rules.save']({
    decision: 'allow',
    match: { kind: 'command', tool: 'shell', words: [], more: true, sandbox: 'also_outside' },
    scope: { kind: 'session', sessionId },
  });
}

async function setup(settings: SettingsPatch = {}): Promise<{ project: string }> {
  h = await startHarness({ settings, llm: { defaultReply: scriptedModel } });
  // Commands run without asking here (the approval is not what these tests are about).
  await allowCommands(h.sessionId);
  const project = h.dir;
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'p', scripts: { test: 'echo all 3 tests passed' } }),
  );
  mkdirSync(path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(project, 'src', 'app.ts'), 'export const app = 1;\n');
  return { project };
}

async function turnIn(sessionId: string, text: string): Promise<void> {
  await h.api['chat.send']({ sessionId, text });
  await h.api.idle(sessionId);
}

async function facts(sessionId = h.sessionId): Promise<ProjectFact[]> {
  return (await h.api['project.get']({ sessionId })).facts;
}

/** The system prompt of each request of a turn the fake model received, in order (not the session's title request). */
function systemPrompts(): string[] {
  return h.llm
    .chatRequests()
    .map((r) => (r.body as { messages: { role: string; content: unknown }[] }).messages)
    .filter((ms) => !/^Title this conversation/i.test(String(ms.at(-1)?.content ?? '')))
    .map((ms) => (ms[0]?.role === 'system' && typeof ms[0].content === 'string' ? ms[0].content : ''));
}

/** The project memory block of a system prompt (from its header to the next heading or the end). */
function projectBlockIn(system: string): string {
  return /# Project memory[\s\S]*?(?=\n#|$)/.exec(system)?.[0] ?? '';
}

async function newSession(folder: string): Promise<string> {
  const s = await h.api['sessions.create']({ workingFolder: folder });
  await allowCommands(s.id);
  return s.id;
}

describe('project memory', () => {
  it('a session that runs `pnpm test` successfully and reads `src/app.ts` yields candidates with their evidence', async () => {
    const { project } = await setup();
    await h.turn(JSON.stringify([run('pnpm test'), read('src/app.ts')]));
    const found = await facts();
    const tool = h.history().filter((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0);
    expect(found.map((f) => [f.kind, f.content, f.status, f.detail])).toEqual([
      ['command', 'pnpm test', 'candidate', 'test'],
      ['path', 'src/app.ts', 'candidate', null],
    ]);
    expect(found[0]!.project).toBe(project);
    expect(found[0]!.evidence).toEqual([
      {
        sessionId: h.sessionId,
        messageId: tool[0]!.id,
        toolCallId: tool[0]!.tool_calls![0]!.id,
        verifiedBy: '$ pnpm test → exit 0',
        at: expect.any(Number),
      },
    ]);
    expect(found[1]!.evidence[0]).toMatchObject({ messageId: tool[1]!.id, verifiedBy: 'read_file src/app.ts' });
    expect(found[1]!.fingerprint).toMatchObject({ type: 'file', size: 22 });
    // The renderers were told, with the inbox's size.
    expect(h.events.filter((e) => e.type === 'project.updated').at(-1)).toEqual({
      type: 'project.updated',
      project,
      inbox: 2,
    });
  });

  it('a failed command yields none (nor does the model saying it worked)', async () => {
    const { project } = await setup();
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ scripts: { test: 'echo 1 failed && exit 1' } }));
    await h.turn(JSON.stringify([run('pnpm test'), read('src/missing.ts')]));
    expect(
      h
        .history()
        .filter((m) => m.role === 'tool')
        .map((m) => m.meta?.status),
    ).toEqual(['error', 'error']);
    expect(await facts()).toEqual([]);
  });

  for (const strategy of ['legacy_segmented', 'cfpm_memory_v1', 'progressive', 'priority_chain'] as const)
    it(`collects what it verified under ${strategy}; the accepted block outlives a compaction there`, async () => {
      await setup({ compaction: { strategy } });
      await h.turn(JSON.stringify([run('pnpm test')]));
      expect((await facts()).map((f) => f.content)).toEqual(['pnpm test']);
      // Accepted, it is in the next session's prompt, and a compaction there does not take it away.
      await h.api['project.decide']({ ids: (await facts()).map((f) => f.id), decision: 'accept' });
      const next = await newSession(h.dir);
      const filler = (i: number, who: string) => `${who} message ${i}: ${'lorem ipsum dolor sit amet '.repeat(7)}`;
      for (let i = 0; i < 40; i++)
        h.store.messages.append(next, [
          { role: 'user', content: filler(i, 'user') },
          { role: 'assistant', content: filler(i, 'assistant') },
        ]);
      await turnIn(next, 'go on');
      const block = projectBlockIn(systemPrompts().at(-1)!);
      expect(block).toContain('`pnpm test`');
      expect(await h.api['compaction.run']({ sessionId: next })).toMatchObject({ reason: null, ok: true });
      await turnIn(next, 'and now?');
      expect(projectBlockIn(systemPrompts().at(-1)!)).toBe(block);
    });

  it("accepted facts are in the next session's first request in the same folder (through a symlink too), not in another folder's", async () => {
    const { project } = await setup();
    await h.turn(JSON.stringify([run('pnpm test'), read('src/app.ts')]));
    await h.api['project.decide']({ ids: (await facts()).map((f) => f.id), decision: 'accept' });

    const link = path.join(path.dirname(project), `${path.basename(project)}-link`);
    symlinkSync(project, link);
    const other = path.join(project, '..', `${path.basename(project)}-other`);
    mkdirSync(other);
    try {
      const viaLink = await newSession(link);
      const before = systemPrompts().length;
      await turnIn(viaLink, 'hello');
      const first = systemPrompts()[before]!;
      expect(first).toContain(`# Project memory (${project})`);
      expect(first).toContain('- `pnpm test` (test)');
      expect(first).toContain('- src/app.ts');

      const elsewhere = await newSession(other);
      const at = systemPrompts().length;
      await turnIn(elsewhere, 'hello');
      expect(systemPrompts()[at]).not.toContain('# Project memory');
      // The meter shows the block as its own share.
      const usage = await h.api['context.usage']({ sessionId: viaLink });
      expect(usage.breakdown.projectMemory).toBeGreaterThan(0);
      expect((await h.api['context.usage']({ sessionId: elsewhere })).breakdown.projectMemory).toBeUndefined();
    } finally {
      rmSync(link, { force: true });
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('a deleted file is marked stale and not injected; a changed one too; accepting it again keeps it as it is now', async () => {
    const { project } = await setup();
    writeFileSync(path.join(project, 'src', 'util.ts'), 'export {};\n');
    await h.turn(JSON.stringify([read('src/app.ts'), read('src/util.ts')]));
    await h.api['project.decide']({ ids: (await facts()).map((f) => f.id), decision: 'accept' });
    rmSync(path.join(project, 'src', 'util.ts'));
    utimesSync(path.join(project, 'src', 'app.ts'), new Date(2001, 1, 1), new Date(2001, 1, 1));

    const next = await newSession(project);
    const before = systemPrompts().length;
    await turnIn(next, 'hello');
    expect(systemPrompts()[before]).not.toContain('# Project memory');
    const after = await facts(next);
    expect(after.map((f) => [f.content, f.status, f.stale])).toEqual([
      ['src/app.ts', 'accepted', 'changed'],
      ['src/util.ts', 'accepted', 'missing'],
    ]);
    // Offered for review: kept as it is now (the file changed), refused for the file that is gone.
    await h.api['project.decide']({ ids: [after[0]!.id], decision: 'accept' });
    await expect(h.api['project.decide']({ ids: [after[1]!.id], decision: 'accept' })).rejects.toThrow(
      /no longer in the project/,
    );
    await turnIn(next, 'again');
    expect(systemPrompts().at(-1)).toContain('- src/app.ts');
    expect(systemPrompts().at(-1)).not.toContain('src/util.ts');
  });

  it('a credential-looking value is never stored, from a session, typed, or imported', async () => {
    const { project } = await setup();
    writeFileSync(path.join(project, '.env'), 'API_KEY=1\n');
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    await h.turn(`From now on always push with https://me:${token}@github.com/me/p.git please.`);
    await h.turn('Always set OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx1234 before running the tests.');
    // A credential file a command read (the file tools would have asked) is no fact either.
    await h.turn(JSON.stringify([run(`pnpm test --token=${token}`), run('cat .env'), run('pnpm test')]));
    await expect(
      h.api['project.facts.upsert']({ sessionId: h.sessionId, kind: 'instruction', content: `use the token ${token}` }),
    ).rejects.toThrow(/password, key or token/);
    await h.api['project.import']({
      sessionId: h.sessionId,
      text: JSON.stringify({
        format: 'threadline.project-memory.v1',
        project: '/x',
        exportedAt: 1,
        facts: [{ kind: 'instruction', content: `Always log in with AWS key AKIAABCDEFGHIJKLMNOP.` }],
      }),
    });
    // What the session verified without a secret is kept: the rest never was.
    const all = h.store.projectMemory.facts(project);
    expect(all.map((f) => f.content)).toEqual(['pnpm test']);
    const dump = JSON.stringify(h.store.projectMemory.facts(project));
    expect(dump).not.toContain(token);
  });

  it('the block is byte-identical across the requests of a session while nothing changed', async () => {
    await setup();
    await h.turn(JSON.stringify([run('pnpm test'), read('src/app.ts')]));
    await h.api['project.decide']({ ids: (await facts()).map((f) => f.id), decision: 'accept' });
    const next = await newSession(h.dir);
    const before = systemPrompts().length;
    // Three requests in one turn, then another turn: every one the same system prompt.
    await turnIn(next, JSON.stringify([read('src/app.ts'), run('pnpm test')]));
    await turnIn(next, 'and now?');
    const prompts = systemPrompts().slice(before);
    expect(prompts).toHaveLength(4);
    expect(prompts[0]).toContain('# Project memory');
    expect(new Set(prompts).size).toBe(1);
  });

  it('a correction supersedes the project fact it contradicts, in another session, and is kept in its place', async () => {
    const { project } = await setup();
    writeFileSync(path.join(project, 'package-lock.json'), '{}');
    await h.turn(JSON.stringify([run('npm test')]));
    await h.api['project.decide']({ ids: (await facts()).map((f) => f.id), decision: 'accept' });
    const next = await newSession(project);
    const before = systemPrompts().length;
    await turnIn(next, "No, don't use npm here; use pnpm.");
    const after = await facts(next);
    const npm = after.find((f) => f.content === 'npm test')!;
    const correction = after.find((f) => f.kind === 'instruction')!;
    expect(npm).toMatchObject({ status: 'superseded', supersededBy: correction.id });
    expect(correction).toMatchObject({
      status: 'accepted',
      detail: 'correction',
      content: "No, don't use npm here; use pnpm.",
    });
    // Already in force for the request that answers the correction.
    expect(systemPrompts()[before]).not.toContain('`npm test`');
    expect(systemPrompts()[before]).toContain("No, don't use npm here; use pnpm.");
  });

  it("facts verified by a command go in without the inbox when Settings say so; the user's words still ask", async () => {
    await setup({ projectMemory: { autoAccept: true } });
    await h.turn('From now on, always run the linter before committing.');
    await h.turn(JSON.stringify([run('pnpm test')]));
    expect((await facts()).map((f) => [f.kind, f.status])).toEqual([
      ['instruction', 'candidate'],
      ['command', 'accepted'],
    ]);
  });

  it('exports as JSON and Markdown and imports them back into the inbox (validated)', async () => {
    await setup();
    await h.turn(JSON.stringify([run('pnpm test'), read('src/app.ts')]));
    await h.turn('We use tabs in this repo.');
    await h.api['project.decide']({ ids: (await facts()).map((f) => f.id), decision: 'accept' });
    const json = await h.api['project.export']({ sessionId: h.sessionId, format: 'json' });
    const md = await h.api['project.export']({ sessionId: h.sessionId, format: 'markdown' });
    expect(json.filename).toMatch(/-memory-\d{4}-\d{2}-\d{2}\.json$/);
    expect(md.text).toContain('## Commands\n\n- `pnpm test` — test');

    // Into another project's inbox, both ways.
    const other = path.join(h.dir, 'sub');
    mkdirSync(path.join(other, 'src'), { recursive: true });
    writeFileSync(path.join(other, 'src', 'app.ts'), 'x');
    execFileSync('git', ['init', '-q', other]);
    const s2 = await newSession(other);
    expect(await h.api['project.import']({ sessionId: s2, text: md.text })).toEqual({ added: 3, skipped: 0 });
    expect(await h.api['project.import']({ sessionId: s2, text: json.text })).toEqual({ added: 0, skipped: 3 });
    const imported = await facts(s2);
    expect(imported.every((f) => f.status === 'candidate' && f.source === 'import')).toBe(true);
    expect(imported[0]!.project).toBe(other);
    await expect(h.api['project.import']({ sessionId: s2, text: '{"format":"nope"}' })).rejects.toThrow(
      /not a Threadline project memory export/,
    );
  });

  it('a planted link out of the folder and a FIFO are never a fact, and checking them does not hang', async () => {
    const { project } = await setup();
    writeFileSync(path.join(project, 'src', 'data.txt'), 'x');
    await h.turn(JSON.stringify([read('src/data.txt')]));
    await h.api['project.decide']({ ids: (await facts()).map((f) => f.id), decision: 'accept' });
    // The file becomes a link out of the project, then a FIFO.
    rmSync(path.join(project, 'src', 'data.txt'));
    symlinkSync('/etc/hostname', path.join(project, 'src', 'data.txt'));
    expect((await facts()).map((f) => f.stale)).toEqual(['outside']);
    rmSync(path.join(project, 'src', 'data.txt'));
    execFileSync('mkfifo', [path.join(project, 'src', 'data.txt')]);
    expect((await facts()).map((f) => f.stale)).toEqual(['missing']);
    // A read through a link out of the folder is no candidate.
    symlinkSync('/etc/hostname', path.join(project, 'host'));
    await h.turn(JSON.stringify([run('cat host')]));
    expect((await facts()).map((f) => f.content)).toEqual(['src/data.txt']);
  });
});
