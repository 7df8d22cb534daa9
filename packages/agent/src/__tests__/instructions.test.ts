// Project instructions, custom instructions and a session's own system prompt (issue 23 point 4):
// real files in a temp dir, fake-llm over real HTTP recording the system prompt it receives.
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '@threadline/fake-llm';
import { seqToolModel, startHarness, type Harness } from './harness';
import { INSTRUCTIONS_MAX_CHARS } from '../session/instructions';

let h: Harness;
afterEach(async () => h?.close());

/** The system prompt of the last conversation request the provider received (not a title request). */
function lastSystem(): string {
  const bodies = h.llm.chatRequests().map((r) => r.body as { messages: { role: string; content: string }[] });
  const body = bodies.filter((b) => !b.messages.at(-1)?.content.startsWith('Title this conversation')).at(-1)!;
  const sys = body.messages[0]!;
  expect(sys.role).toBe('system');
  return sys.content;
}

let repo: string;
let folder: string;

async function setup(opts: Parameters<typeof startHarness>[0] = {}): Promise<void> {
  h = await startHarness(opts);
  const root = realpathSync(h.dir);
  repo = path.join(root, 'repo');
  folder = path.join(repo, 'packages', 'app');
  mkdirSync(path.join(repo, '.git'), { recursive: true });
  mkdirSync(folder, { recursive: true });
  await h.api['sessions.update']({ id: h.sessionId, workingFolder: folder });
}

describe('project instructions', () => {
  it("reach the provider's system prompt from the repository root, and leave it when the file is deleted", async () => {
    await setup();
    await h.turn('hello');
    const base = lastSystem();
    expect(base).not.toContain('Project instructions');
    const file = path.join(repo, 'AGENTS.md');
    writeFileSync(file, 'Always run pnpm lint before committing.\n');
    await h.turn('again');
    expect(lastSystem()).toBe(`${base}\n\n# Project instructions (${file})\n\nAlways run pnpm lint before committing.`);
    const got = await h.api['instructions.get']({ sessionId: h.sessionId });
    expect(got.project).toEqual({
      path: file,
      name: 'AGENTS.md',
      text: 'Always run pnpm lint before committing.\n',
      capped: false,
    });
    // Edited (a new mtime and size): the next call has the new text.
    writeFileSync(file, 'Use tabs.\n');
    utimesSync(file, new Date(Date.UTC(2030, 0, 1)), new Date(Date.UTC(2030, 0, 1)));
    await h.turn('third');
    expect(lastSystem()).toContain('\n\nUse tabs.');
    expect(lastSystem()).not.toContain('pnpm lint');
    rmSync(file);
    await h.turn('fourth');
    expect(lastSystem()).toBe(base);
    expect((await h.api['instructions.get']({ sessionId: h.sessionId })).project).toBeNull();
  });

  it('the nearest file wins, CLAUDE.md and .github/copilot-instructions.md count; nothing above the repository', async () => {
    await setup();
    writeFileSync(path.join(path.dirname(repo), 'AGENTS.md'), 'ABOVE-THE-REPO');
    mkdirSync(path.join(repo, '.github'));
    writeFileSync(path.join(repo, '.github', 'copilot-instructions.md'), 'root copilot');
    await h.turn('one');
    expect(lastSystem()).toContain('root copilot');
    expect(lastSystem()).not.toContain('ABOVE-THE-REPO');
    writeFileSync(path.join(folder, 'CLAUDE.md'), 'nearest claude');
    await h.turn('two');
    expect(lastSystem()).toContain('nearest claude');
    expect(lastSystem()).not.toContain('root copilot');
    const got = await h.api['instructions.get']({ sessionId: h.sessionId });
    expect(got.project?.name).toBe('CLAUDE.md');
  });

  it('are capped with a marker, and the meter shows them as their own share', async () => {
    await setup();
    writeFileSync(path.join(repo, 'AGENTS.md'), 'rule. '.repeat(INSTRUCTIONS_MAX_CHARS));
    await h.turn('hi');
    const sys = lastSystem();
    expect(sys).toContain(`only its first ${INSTRUCTIONS_MAX_CHARS} characters are included]`);
    expect(sys.length).toBeLessThan(INSTRUCTIONS_MAX_CHARS + 2000);
    const usage = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(usage.breakdown.instructions).toBeGreaterThan(1000);
    expect(usage.breakdown.system).toBeLessThan(usage.breakdown.instructions!);
    rmSync(path.join(repo, 'AGENTS.md'));
    const none = await h.api['context.usage']({ sessionId: h.sessionId });
    expect(none.breakdown.instructions).toBeUndefined();
  });
});

describe('project instructions obey the reach of read_file (issue 34 point 4, issue 35)', () => {
  it('a link out of the repository (to a credential) never reaches the prompt; a link inside it does; a FIFO is skipped', async () => {
    await setup();
    // ~/.claude/.credentials.json of the user (a place no file tool reads without asking).
    const creds = path.join(realpathSync(h.dir), 'home', '.claude', '.credentials.json');
    mkdirSync(path.dirname(creds), { recursive: true });
    writeFileSync(creds, '{"claudeAiOauth":{"accessToken":"sk-ant-oat01-SECRET"}}');
    symlinkSync(creds, path.join(folder, 'AGENTS.md'));
    // The folder next to it, outside the repository: not a credential place, still outside.
    const elsewhere = path.join(realpathSync(h.dir), 'other-project', 'notes.md');
    mkdirSync(path.dirname(elsewhere), { recursive: true });
    writeFileSync(elsewhere, 'OTHER-PROJECT-NOTES');
    symlinkSync(elsewhere, path.join(folder, 'CLAUDE.md'));
    // A FIFO as the repository root's instruction file: never opened (it would wait for a writer).
    execFileSync('mkfifo', [path.join(repo, 'AGENTS.md')]);
    // The common link inside the repository is followed.
    writeFileSync(path.join(repo, 'RULES.md'), 'shared repo rule');
    symlinkSync(path.join(repo, 'RULES.md'), path.join(repo, 'CLAUDE.md'));
    await h.turn('hello');
    const sys = lastSystem();
    expect(sys).not.toContain('SECRET');
    expect(sys).not.toContain('OTHER-PROJECT-NOTES');
    expect(sys).toContain(`# Project instructions (${path.join(repo, 'CLAUDE.md')})\n\nshared repo rule`);
    // A symlink loop as the nearest file is skipped too, not a failed turn.
    rmSync(path.join(folder, 'AGENTS.md'));
    symlinkSync(path.join(folder, 'AGENTS.md'), path.join(folder, 'AGENTS.md'));
    await h.turn('again');
    expect(lastSystem()).toContain('shared repo rule');
    expect(h.history().some((m) => m.kind === 'error_notice')).toBe(false);
  });
});

describe("the user's instructions", () => {
  it('custom instructions (Settings) and the session prompt reach the system prompt, in a fixed order', async () => {
    await setup();
    writeFileSync(path.join(repo, 'AGENTS.md'), 'project rule');
    await h.api['settings.set']({ patch: { agent: { customInstructions: 'Answer in French.' } } });
    await h.turn('one');
    const one = lastSystem();
    expect(one).toContain("# The user's instructions\n\nAnswer in French.");
    expect(one.indexOf('project rule')).toBeLessThan(one.indexOf('Answer in French.'));
    const set = await h.api['instructions.setSession']({
      sessionId: h.sessionId,
      systemPrompt: 'You review SQL only.',
    });
    expect(set.session).toBe('You review SQL only.');
    await h.turn('two');
    const two = lastSystem();
    expect(two).toBe(`${one}\n\n# The user's instructions for this session\n\nYou review SQL only.`);
    // Another session has none of this session's prompt.
    const other = await h.api['sessions.create']({ workingFolder: folder });
    await h.api['chat.send']({ sessionId: other.id, text: 'other' });
    await h.api.idle(other.id);
    expect(lastSystem()).toBe(one);
    // Cleared: gone from the next call.
    await h.api['instructions.setSession']({ sessionId: h.sessionId, systemPrompt: '  ' });
    await h.turn('three');
    expect(lastSystem()).toBe(one);
    expect((await h.api['instructions.get']({ sessionId: h.sessionId })).session).toBeNull();
  });

  it('survive a compaction: they are in the system prompt, not in history', async () => {
    await setup({ settings: { approvalPolicy: 'auto' }, llm: { defaultReply: seqToolModel('done') } });
    await h.api['instructions.setSession']({ sessionId: h.sessionId, systemPrompt: 'KEEP-THIS-RULE' });
    for (let t = 1; t <= 5; t++) await h.turn(`task ${t}`);
    const run = await h.api['compaction.run']({ sessionId: h.sessionId });
    expect(run.ok).toBe(true);
    expect(h.history().some((m) => (m.content ?? '').includes('KEEP-THIS-RULE'))).toBe(false);
    await h.turn('after');
    expect(lastSystem()).toContain('KEEP-THIS-RULE');
  });

  it('are read once per turn, and again in the same turn once a tool that may write ran', async () => {
    /** The system prompts of this test's conversation requests, in order. */
    const systems = (): string[] =>
      h.llm.chatRequests().map((r) => (r.body as { messages: { content: string }[] }).messages[0]!.content);
    let step = 0;
    await setup({
      settings: { approvalPolicy: 'auto' },
      llm: {
        defaultReply: (): FakeReply => {
          step += 1;
          // While the turn runs, the user edits the file outside (no tool of the turn wrote it).
          if (step === 1) writeFileSync(path.join(folder, 'AGENTS.md'), 'EDITED-OUTSIDE');
          if (step === 1) return { toolCalls: [{ name: 'read_file', arguments: { path: 'AGENTS.md' } }] };
          // A tool that may write changes the folder: the next call reads the instructions again.
          if (step === 2)
            return { toolCalls: [{ name: 'shell', arguments: { command: 'echo WRITTEN-BY-TOOL > AGENTS.md' } }] };
          return { content: 'done' };
        },
      },
    });
    await h.turn('go');
    const [first, second, third] = systems();
    expect(first).not.toContain('EDITED-OUTSIDE');
    // Read once for the turn: a read-only tool changed nothing, the second call is the first's.
    expect(second).toBe(first);
    expect(third).toContain('WRITTEN-BY-TOOL');
  });
});
