// Helpers stay inside their parent's boundary (issue 39, item 4): the explore role changes
// nothing, a helper's card is answered in the parent's chat and its answer reaches the helper,
// Stop ends every helper, its file changes are the parent turn's checkpoint, and the call's
// tasks are checked before any helper starts.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppEvent } from '@threadline/protocol';
import { detectSandbox } from '../sandbox';
import { startHarness, type Harness, type HarnessOptions } from './harness';
import {
  delegatingModel,
  helperRequests,
  isHelperRequest,
  requestText,
  sent,
  type DelegateTask,
} from './helpersScript';

const sandbox = await detectSandbox('linux');
const NO_BWRAP = sandbox.kind === 'bwrap' ? null : `bwrap is not usable here (${sandbox.reason ?? '?'})`;

let h: Harness;
afterEach(async () => h?.close());

const until = (check: () => void) => vi.waitFor(check, { timeout: 15_000, interval: 20 });
type Requested = Extract<AppEvent, { type: 'tool.requested' }>;

/** A harness whose model delegates `tasks` on "go"; each helper makes `call` (one per task) and reports. */
function delegating(
  tasks: DelegateTask[],
  call: (task: string) => { name: string; arguments: Record<string, unknown> } | null,
  opts: Omit<HarnessOptions, 'llm'> = {},
): Promise<Harness> {
  return startHarness({
    ...opts,
    llm: { defaultReply: delegatingModel({ delegateOn: 'go', tasks, helperCall: call }) },
  });
}

const shellCall = (command: string) => () => ({ name: 'shell', arguments: { command } });

describe("an explore helper's commands change nothing", () => {
  it.skipIf(NO_BWRAP !== null)(
    'a write runs in a read-only sandbox and fails there',
    async () => {
      h = await delegating([{ task: 'Write a file.' }], shellCall('echo made > made.txt'));
      await h.turn('go');
      expect(existsSync(path.join(h.dir, 'made.txt'))).toBe(false);
      const [helper] = await h.api['helpers.list']({ sessionId: h.sessionId });
      const result = (await h.api['messages.list']({ sessionId: helper!.id })).find((m) => m.role === 'tool')!;
      expect(result.content).toMatch(/Read-only file system/);
      expect(result.meta?.sandboxed).toBe('bwrap');
      // Its report tells the parent it could not.
      expect(helper!.report).toMatch(/Read-only file system/);
      // The file's first sandboxed command (bwrap detection included): tens of seconds on a busy machine.
    },
    120_000,
  );

  it('is refused where there is no sandbox, whatever the policy', async () => {
    h = await delegating([{ task: 'Write a file.' }], shellCall('echo made > made.txt'), {
      settings: { approvalPolicy: 'auto' },
      api: { sandbox: { force: 'none' } },
    });
    await h.turn('go');
    expect(existsSync(path.join(h.dir, 'made.txt'))).toBe(false);
    const [helper] = await h.api['helpers.list']({ sessionId: h.sessionId });
    const result = (await h.api['messages.list']({ sessionId: helper!.id })).find((m) => m.role === 'tool')!;
    expect(result.content).toMatch(/^Error: refused: this helper only reads \(role explore\)/);
    expect(result.meta?.status).toBe('error');
  });

  it('cannot ask to leave the sandbox', async () => {
    h = await delegating([{ task: 'Leave.' }], () => ({
      name: 'shell',
      arguments: { command: 'echo made > made.txt', sandbox: false },
    }));
    await h.turn('go');
    expect(existsSync(path.join(h.dir, 'made.txt'))).toBe(false);
    expect(h.events.some((e) => e.type === 'tool.requested' && e.needsApproval)).toBe(false);
    const [helper] = await h.api['helpers.list']({ sessionId: h.sessionId });
    const result = (await h.api['messages.list']({ sessionId: helper!.id })).find((m) => m.role === 'tool')!;
    expect(result.content).toMatch(/cannot leave it/);
  });
});

describe("a helper's approval card", () => {
  it("appears for the parent's chat and waits; a deny with a reason reaches the helper", async () => {
    h = await delegating([{ task: 'Change the file.', role: 'work' }], shellCall('touch w.txt'), {
      settings: { approvalPolicy: 'ask' },
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'go' });
    const asked = await h.waitFor('tool.requested', (e) => e.needsApproval);
    const [helper] = await h.api['helpers.list']({ sessionId: h.sessionId });
    // The card is the helper's call (its session), listed with the parent's helpers, and waits.
    expect(asked.sessionId).toBe(helper!.id);
    expect(helper!.parentSessionId).toBe(h.sessionId);
    expect(helper!.status).toBe('running');
    const state = await h.api['chat.state']({ sessionId: helper!.id });
    expect(state.pending.map((p) => [p.toolCall.id, p.status])).toEqual([[asked.toolCall.id, 'waiting']]);
    expect((await h.api['chat.state']({ sessionId: h.sessionId })).busy).toBe(true);
    await h.api['chat.approve']({
      sessionId: helper!.id,
      toolCallId: asked.toolCall.id,
      decision: 'deny',
      reason: 'not in this folder',
      remember: { scope: 'session', matches: [asked.rules!.parts[0]!.options.at(-1)!] },
    });
    await h.api.idle(h.sessionId);
    expect(existsSync(path.join(h.dir, 'w.txt'))).toBe(false);
    // The helper read the denial, and reported it.
    const mine = helperRequests(sent(h.llm), 'Change the file.');
    expect(requestText(mine.at(-1)!)).toContain(
      'denied: the user did not allow this tool call and said: not in this folder',
    );
    const [ended] = await h.api['helpers.list']({ sessionId: h.sessionId });
    expect(ended!.report).toContain('not in this folder');
    // "Deny … in this session" is a rule of the parent's session (the helper's rules are its parent's).
    expect((await h.api['rules.list']({})).map((r) => [r.decision, r.scope])).toEqual([
      ['deny', { kind: 'session', sessionId: h.sessionId }],
    ]);
  });

  it("follows the parent's rules: a tool the session denies is denied to its helpers", async () => {
    h = await delegating([{ task: 'Change the file.', role: 'work' }], shellCall('echo changed > w.txt'), {
      settings: { approvalPolicy: 'auto' },
    });
    await h.api['rules.save']({
      decision: 'deny',
      match: { kind: 'command', tool: 'shell', words: [], more: true, sandbox: 'also_outside' },
      scope: { kind: 'session', sessionId: h.sessionId },
    });
    await h.turn('go');
    expect(existsSync(path.join(h.dir, 'w.txt'))).toBe(false);
    const [helper] = await h.api['helpers.list']({ sessionId: h.sessionId });
    const result = (await h.api['messages.list']({ sessionId: helper!.id })).find((m) => m.role === 'tool')!;
    expect(result.meta?.status).toBe('denied');
  });
});

describe('Stop during helpers', () => {
  it('ends every one of them, and the turn', async () => {
    h = await delegating([{ task: 'One.' }, { task: 'Two.' }, { task: 'Three.' }], () => null, {
      settings: { helpers: { concurrency: 3 } },
    });
    const hold = h.llm.hold((req) => isHelperRequest(req));
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'go' });
    await until(() => expect(hold.held()).toBe(3));
    await h.api['chat.cancel']({ sessionId: h.sessionId });
    await h.api.idle(h.sessionId);
    // Stop never waits for what it stopped (issue 35): the turn ends at once, each helper as it
    // sees the signal, a moment later.
    const list = await h.api['helpers.list']({ sessionId: h.sessionId });
    for (const x of list) await h.api.idle(x.id);
    const ended = await h.api['helpers.list']({ sessionId: h.sessionId });
    expect(ended.map((x) => x.status)).toEqual(['stopped', 'stopped', 'stopped']);
    for (const x of list) expect((await h.api['chat.state']({ sessionId: x.id })).busy).toBe(false);
    // Their requests were dropped, not answered (the server hears of it a moment later).
    await until(() => expect(hold.held()).toBe(0));
    const helperRecs = h.llm.chatRequests().filter((r) => isHelperRequest(r.body as never));
    expect(helperRecs.map((r) => [r.clientClosed, r.status])).toEqual([
      [true, undefined],
      [true, undefined],
      [true, undefined],
    ]);
    // The parent's call ended as stopped; the turn is over.
    const result = h.history().find((m) => m.role === 'tool' && m.meta?.toolName === 'delegate')!;
    expect(result.meta?.status).toBe('aborted');
    expect(result.content).toBe('aborted: the user stopped the turn while this tool ran');
    expect(h.history().at(-1)!.kind).toBe('turn_aborted');
  });
});

describe('a helper whose session is deleted while it runs', () => {
  it('stops; the call still ends, with its section', async () => {
    h = await delegating([{ task: 'Wait.' }], () => null);
    const hold = h.llm.hold((req) => isHelperRequest(req));
    await h.api['chat.send']({ sessionId: h.sessionId, text: 'go' });
    await until(() => expect(hold.held()).toBe(1));
    const [helper] = await h.api['helpers.list']({ sessionId: h.sessionId });
    await h.api['sessions.delete']({ id: helper!.id });
    await h.api.idle(h.sessionId);
    expect(await h.api['helpers.list']({ sessionId: h.sessionId })).toEqual([]);
    const result = h.history().find((m) => m.role === 'tool' && m.meta?.toolName === 'delegate')!;
    expect(result.content).toContain('## Helper 1 of 1');
    expect(result.content).toContain('0 of 1 helpers finished');
  });
});

describe("a helper's file changes", () => {
  it("belong to the parent turn's checkpoint: Undo takes them back", async () => {
    h = await delegating([{ task: 'Write it.', role: 'work' }], () => ({
      name: 'write_file',
      arguments: { path: 'from-helper.txt', content: 'written by a helper\n' },
    }));
    await h.turn('go');
    const file = path.join(h.dir, 'from-helper.txt');
    expect(readFileSync(file, 'utf8')).toBe('written by a helper\n');
    const { checkpoints } = await h.api['checkpoints.list']({ sessionId: h.sessionId });
    expect(checkpoints).toHaveLength(1);
    expect(checkpoints[0]!.files.map((f) => f.path)).toEqual(['from-helper.txt']);
    const [helper] = await h.api['helpers.list']({ sessionId: h.sessionId });
    expect((await h.api['checkpoints.list']({ sessionId: helper!.id })).checkpoints).toEqual([]);
    // What it changed is in its report and in the parent's memory.
    const result = h.history().find((m) => m.role === 'tool' && m.meta?.toolName === 'delegate')!;
    expect(result.content).toContain('Files it changed: from-helper.txt');
    const undo = await h.api['checkpoints.restore']({ checkpointId: checkpoints[0]!.id, force: false });
    expect(undo.applied).toBe(true);
    expect(existsSync(file)).toBe(false);
  });
});

describe("what a helper's commands leave that runs code later", () => {
  it.skipIf(NO_BWRAP !== null)(
    "is held with the parent turn's, on the parent chat's card (where the user answers it)",
    async () => {
      const bin = 'node_modules/.bin/vitest';
      h = await delegating(
        [{ task: 'Install it.', role: 'work' }],
        shellCall(`mkdir -p node_modules/.bin && printf '#!/bin/sh\\n' > ${bin} && chmod +x ${bin}`),
      );
      await h.turn('go');
      const [helper] = await h.api['helpers.list']({ sessionId: h.sessionId });
      const result = (await h.api['messages.list']({ sessionId: helper!.id })).find((m) => m.role === 'tool')!;
      expect(result.meta?.sandboxed).toBe('bwrap');
      expect((await h.api['held.list']({ sessionId: h.sessionId })).files.map((f) => f.path)).toEqual([bin]);
      expect((await h.api['held.list']({ sessionId: helper!.id })).files).toEqual([]);
      expect(existsSync(path.join(h.dir, bin))).toBe(false);
    },
    120_000,
  );
});

describe("the call's tasks, checked before any helper starts", () => {
  const refused = async (tasks: DelegateTask[], settings: HarnessOptions['settings'] = {}): Promise<string> => {
    h = await delegating(tasks, () => null, { settings });
    await h.turn('go');
    expect(await h.api['helpers.list']({ sessionId: h.sessionId })).toEqual([]);
    const result = h.history().find((m) => m.role === 'tool' && m.meta?.toolName === 'delegate')!;
    expect(result.meta?.status).toBe('error');
    return result.content ?? '';
  };

  it('an unknown role', async () => {
    expect(await refused([{ task: 'x', role: 'wizard' }])).toBe(
      'Error: task 1: no role "wizard". Roles: explore, work.',
    );
  });

  it("a tool outside the role's", async () => {
    expect(await refused([{ task: 'x' }, { task: 'y', tools: ['write_file'] }])).toMatch(
      /^Error: task 2: the explore role has no write_file\. Its tools: shell, read_file/,
    );
  });

  it('a model no role names', async () => {
    expect(await refused([{ task: 'x', model: 'gpt-expensive' }])).toBe(
      'Error: task 1: a helper may use fake-model, not gpt-expensive.',
    );
  });

  it('more than five tasks', async () => {
    const six = Array.from({ length: 6 }, (_, i) => ({ task: `t${i}` }));
    expect(await refused(six)).toMatch(/^Error: invalid arguments for delegate: tasks/);
  });
});

describe("a role of the user's", () => {
  it('gives its helpers its tools and its model; the parent is told of it', async () => {
    h = await delegating(
      [{ task: 'Review.', role: 'reviewer' }],
      () => ({ name: 'read_file', arguments: { path: 'x' } }),
      {
        settings: {
          helpers: {
            roles: [
              {
                name: 'reviewer',
                description: 'Reads code and reviews it.',
                tools: ['read_file', 'grep'],
                model: 'small-model',
              },
            ],
          },
        },
      },
    );
    await h.turn('go');
    const bodies = h.llm
      .chatRequests()
      .map(
        (r) => r.body as { model: string; messages: { content: unknown }[]; tools?: { function: { name: string } }[] },
      );
    const parent = bodies.find((b) => !isHelperRequest(b as never))!;
    expect(String(parent.messages[0]!.content)).toContain(
      '- reviewer: Reads code and reviews it. (tools: read_file, grep)',
    );
    const helper = bodies.filter((b) => isHelperRequest(b as never));
    expect(helper.map((b) => b.model)).toEqual(['small-model', 'small-model']);
    expect(helper[0]!.tools!.map((t) => t.function.name)).toEqual(['read_file', 'grep']);
    const [row] = await h.api['helpers.list']({ sessionId: h.sessionId });
    expect([row!.role, row!.model, row!.tools]).toEqual(['reviewer', 'small-model', ['read_file', 'grep']]);
  });
});

describe('a helper whose provider fails', () => {
  it('ends as failed, saying why; the others go on', async () => {
    h = await delegating([{ task: 'Fails.' }, { task: 'Works.' }], () => null, {
      settings: { helpers: { concurrency: 1 } },
    });
    h.llm.setRules([
      {
        match: { systemIncludes: '# You are a helper', lastUserIncludes: 'Fails.' },
        reply: { error: { status: 400, message: 'this model cannot do that' } },
      },
    ]);
    await h.turn('go');
    const list = await h.api['helpers.list']({ sessionId: h.sessionId });
    expect(list.map((x) => x.status)).toEqual(['failed', 'done']);
    expect(list[0]!.error).toContain('this model cannot do that');
    const result = h.history().find((m) => m.role === 'tool' && m.meta?.toolName === 'delegate')!;
    expect(result.content).toContain('1 of 2 helpers finished');
    expect(
      h.events.some((e): e is Requested => e.type === 'tool.requested' && e.toolCall.function.name === 'delegate'),
    ).toBe(true);
  });
});
