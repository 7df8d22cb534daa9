// What the agent may touch (issue 12 point 1): real files and symlinks in a temp dir, fake-llm
// over real HTTP asking for the calls, the real turn loop deciding.
import { existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callFromText, startHarness, toolCallsOf, type Harness } from './harness';

let h: Harness;
const { runs, asks } = toolCallsOf(() => h);
afterEach(async () => h?.close());

/** The user's text is the call the model makes: `{"name":…,"arguments":{…}}`. */

interface Layout {
  folder: string;
  home: string;
  data: string;
  outside: string;
}

/** A session in <tmp>/work; the home, the data folder and an outside folder beside it. */
async function setup(settings: Parameters<typeof startHarness>[0] = {}): Promise<Layout> {
  h = await startHarness({ ...settings, llm: { defaultReply: callFromText } });
  const root = realpathSync(h.dir);
  const l: Layout = {
    folder: path.join(root, 'work'),
    home: path.join(root, 'home'),
    data: path.join(root, 'data'),
    outside: path.join(root, 'outside'),
  };
  for (const d of Object.values(l)) mkdirSync(d, { recursive: true });
  writeFileSync(path.join(l.folder, 'notes.txt'), 'inside-content');
  writeFileSync(path.join(l.outside, 'private.txt'), 'outside-content');
  writeFileSync(path.join(l.data, 'secret.key'), 'SEALING-KEY-BYTES');
  await h.api['sessions.update']({ id: h.sessionId, workingFolder: l.folder });
  return l;
}

/** Nothing of `text` reached the provider in any request. */
function neverSent(text: string): void {
  expect(JSON.stringify(h.llm.chatRequests().map((r) => r.body))).not.toContain(text);
}

describe('file tools and the working folder', () => {
  it('run inside the folder without asking (read, list, write), and shell runs there', async () => {
    const l = await setup();
    expect((await runs('read_file', { path: 'notes.txt' })).content).toContain('inside-content');
    expect((await runs('list_dir', {})).content).toContain('notes.txt');
    await runs('write_file', { path: 'sub/new.txt', content: 'made' });
    expect(existsSync(path.join(l.folder, 'sub/new.txt'))).toBe(true);
    await h.api['settings.set']({ patch: { approvalPolicy: 'auto' } });
    expect((await runs('shell', { command: 'pwd' })).content).toContain(l.folder);
    expect(
      h.events.some((e) => e.type === 'tool.requested' && e.toolCall.function.name !== 'shell' && e.needsApproval),
    ).toBe(false);
  });

  it('ask outside it — `..` and symlinks resolved first — and the request shows the resolved path', async () => {
    const l = await setup();
    const target = path.join(l.outside, 'private.txt');
    const dotdot = await asks('read_file', { path: '../outside/private.txt' }, 'deny');
    expect(dotdot.req.access).toEqual({ path: target, zone: 'outside' });
    expect(dotdot.result.meta?.status).toBe('denied');
    symlinkSync(target, path.join(l.folder, 'innocent.txt'));
    const viaLink = await asks('read_file', { path: 'innocent.txt' }, 'deny');
    expect(viaLink.req.access).toEqual({ path: target, zone: 'outside' });
    // `link/..` is the link target's parent, as the OS follows it, not the folder.
    symlinkSync(path.join(l.outside), path.join(l.folder, 'door'));
    const parent = await asks('list_dir', { path: 'door/..' }, 'deny');
    expect(parent.req.access?.path).toBe(path.dirname(l.outside));
    neverSent('outside-content');
    // Approved, it runs, on the resolved path.
    const approved = await asks('read_file', { path: 'innocent.txt' }, 'approve');
    expect(approved.result.content).toContain('outside-content');
    expect(approved.result.meta?.path).toBe(target);
    // write_file outside writes nothing until approved.
    const w = await asks('write_file', { path: '~/../outside/planted.txt', content: 'x' }, 'deny');
    expect(w.req.access?.path).toBe(path.join(l.outside, 'planted.txt'));
    expect(existsSync(path.join(l.outside, 'planted.txt'))).toBe(false);
  });

  it("refuse the app's data folder outright, approved or not, as an error the model reads", async () => {
    const l = await setup({ settings: { approvalPolicy: 'auto' } });
    await h.api['rules.save']({
      decision: 'allow',
      match: { kind: 'path', tool: 'read_file', scope: { kind: 'any' } },
      scope: { kind: 'session', sessionId: h.sessionId },
    });
    symlinkSync(path.join(l.data, 'secret.key'), path.join(l.folder, 'key.txt'));
    for (const p of [
      path.join(l.data, 'secret.key'),
      'key.txt',
      `${path.join(realpathSync(h.dir), 'threadline.db')}-wal`,
    ]) {
      const r = await runs('read_file', { path: p });
      expect(r.meta?.status).toBe('error');
      expect(r.content).toMatch(/refused: .* is in Threadline's own data folder/);
    }
    const w = await runs('write_file', { path: path.join(l.data, 'threadline.sqlite'), content: 'x' });
    expect(w.content).toMatch(/refused/);
    expect(existsSync(path.join(l.data, 'threadline.sqlite'))).toBe(false);
    neverSent('SEALING-KEY-BYTES');
    // Refused calls never asked: there is nothing to approve.
    expect(h.events.some((e) => e.type === 'tool.requested' && e.needsApproval)).toBe(false);
  });

  it('always ask for credential places and .env files, even inside the folder and under auto', async () => {
    const l = await setup({ settings: { approvalPolicy: 'auto' } });
    await h.api['rules.save']({
      decision: 'allow',
      match: { kind: 'path', tool: 'read_file', scope: { kind: 'any' } },
      scope: { kind: 'session', sessionId: h.sessionId },
    });
    mkdirSync(path.join(l.home, '.ssh'));
    writeFileSync(path.join(l.home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY');
    writeFileSync(path.join(l.folder, '.env.local'), 'API_TOKEN=planted');
    const ssh = await asks('read_file', { path: '~/.ssh/id_ed25519' }, 'deny');
    expect(ssh.req.access).toEqual({
      path: path.join(l.home, '.ssh', 'id_ed25519'),
      zone: 'credential',
      reason: 'key_file',
    });
    const env = await asks('read_file', { path: '.env.local' }, 'deny');
    expect(env.req.access?.zone).toBe('credential');
    if (process.platform === 'linux') {
      // The app's own environment, one symlink away (/proc/self → /proc/<pid>).
      const proc = await asks('read_file', { path: '/proc/self/environ' }, 'deny');
      expect(proc.req.access).toEqual({
        path: `/proc/${process.pid}/environ`,
        zone: 'credential',
        reason: 'process_env',
      });
    }
    neverSent('PRIVATE-KEY');
    neverSent('API_TOKEN=planted');
  });

  it('follow rules for a tool on every path: deny denies inside, ask asks inside', async () => {
    await setup();
    const session = { kind: 'session', sessionId: h.sessionId } as const;
    const any = { kind: 'any' } as const;
    await h.api['rules.save']({
      decision: 'deny',
      match: { kind: 'path', tool: 'read_file', scope: any },
      scope: session,
    });
    expect((await runs('read_file', { path: 'notes.txt' })).meta?.status).toBe('denied');
    await h.api['rules.save']({
      decision: 'ask',
      match: { kind: 'path', tool: 'write_file', scope: any },
      scope: session,
    });
    const w = await asks('write_file', { path: 'a.txt', content: 'x' }, 'deny');
    expect(w.req.access).toBeUndefined(); // inside: nothing to point out, the policy asked
  });
});

describe('the working folder of a session', () => {
  it('defaults to ~/Threadline, created on first use; the settings can name another', async () => {
    await setup();
    const home = path.join(realpathSync(h.dir), 'home');
    const s = await h.api['sessions.create']({});
    expect(s.workingFolder).toBe(path.join(home, 'Threadline'));
    expect(existsSync(s.workingFolder)).toBe(false);
    await h.api['settings.set']({ patch: { agent: { defaultWorkingFolder: '~/projects/x' } } });
    expect((await h.api['sessions.create']({})).workingFolder).toBe(path.join(home, 'projects', 'x'));
    // A session from before working folders (none stored) works in today's default.
    const legacy = h.store.sessions.create('from v4');
    expect(legacy.workingFolder).toBe('');
    expect((await h.api['sessions.list']({})).find((x) => x.id === legacy.id)?.workingFolder).toBe(
      path.join(home, 'projects', 'x'),
    );
    // The first session keeps its folder; its first tool call creates it.
    expect((await h.api['sessions.list']({})).find((x) => x.id === s.id)?.workingFolder).toBe(s.workingFolder);
    await h.api['chat.send']({ sessionId: s.id, text: JSON.stringify({ name: 'list_dir', arguments: {} }) });
    await h.api.idle(s.id);
    expect(existsSync(s.workingFolder)).toBe(true);
  });

  it('is never the home folder, a root, the data folder or a credential place; one sentence each', async () => {
    const l = await setup();
    const refused = async (workingFolder: string): Promise<string> => {
      const r = await h.api['sessions.update']({ id: h.sessionId, workingFolder }).then(
        () => 'accepted',
        (e: Error) => e.message,
      );
      expect(r).not.toBe('accepted');
      return r;
    };
    expect(await refused('~')).toMatch(/whole home folder/);
    expect(await refused('~/projects/..')).toMatch(/whole home folder/);
    expect(await refused('/')).toMatch(/root/);
    expect(await refused(path.join(l.data, 'inner'))).toMatch(/data folder/);
    expect(await refused('~/.ssh')).toMatch(/credentials/);
    expect(await refused(path.join(l.folder, 'notes.txt'))).toMatch(/is a file/);
    await expect(h.api['settings.set']({ patch: { agent: { defaultWorkingFolder: '~' } } })).rejects.toThrow(
      /whole home folder/,
    );
    // A typed folder that does not exist is refused, never created silently; created when asked.
    const typo = path.join(l.outside, 'prjects');
    await expect(h.api['sessions.update']({ id: h.sessionId, workingFolder: typo })).rejects.toMatchObject({
      code: 'not_found',
      message: `The folder ${typo} does not exist.`,
    });
    expect(existsSync(typo)).toBe(false);
    await h.api['sessions.update']({ id: h.sessionId, workingFolder: typo, createFolder: true });
    expect(existsSync(typo)).toBe(true);
    const moved = await h.api['sessions.update']({ id: h.sessionId, workingFolder: l.outside });
    expect(moved.workingFolder).toBe(l.outside);
    expect(h.events.some((e) => e.type === 'session.updated' && e.session?.workingFolder === l.outside)).toBe(true);
    expect((await runs('read_file', { path: 'private.txt' })).content).toContain('outside-content');
  });

  it('children get the Settings pass-through list and nothing else secret-looking', async () => {
    await setup({ settings: { approvalPolicy: 'auto', agent: { envPassthrough: ['TL_PASS_TOKEN'] } } });
    process.env.TL_PASS_TOKEN = 'passed-through-value';
    process.env.TL_OTHER_TOKEN = 'stripped-value';
    try {
      const r = await runs('shell', { command: 'env' });
      expect(r.content).toContain('TL_PASS_TOKEN=passed-through-value');
      expect(r.content).not.toContain('stripped-value');
    } finally {
      delete process.env.TL_PASS_TOKEN;
      delete process.env.TL_OTHER_TOKEN;
    }
  });
});
