// A prompt-injected model (issue 21, points 2–5): fake-llm over real HTTP makes the calls an
// attacker's text asks for, the real turn loop decides, real files, real git and real child
// processes show what would have run. Every policy is `auto`: what asks here asks under any policy.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '@threadline/protocol';
import { BUILTIN_TOOLS, ToolRegistry } from '../tools/registry';
import { writeFileTool } from '../tools/files';
import type { ToolDefinition } from '../tools/types';
import { callFromText, startHarness, toolCallsOf, type Harness, type HarnessOptions } from './harness';

let h: Harness;
const { send, asks } = toolCallsOf(() => h);
afterEach(async () => h?.close());

/** The user's text is the call the model makes: `{"name":…,"arguments":{…}}`. */

/**
 * A write tool that is not write_file (as the edit tools are): the rule follows the tool's write
 * intent (a path and not read-only), not its name.
 */
const appendTool: ToolDefinition<{ path: string; content: string }> = {
  ...writeFileTool,
  name: 'append_lines',
  description: 'Append lines to a file.',
};

interface Layout {
  root: string;
  folder: string;
  home: string;
  marker: string;
}

/** A session in <tmp>/work (a real git repository), its home in <tmp>/home, everything on `auto`. */
async function setup(opts: HarnessOptions = {}): Promise<Layout> {
  h = await startHarness({
    ...opts,
    settings: { approvalPolicy: 'auto', ...opts.settings },
    llm: { defaultReply: callFromText },
    api: { tools: new ToolRegistry([...BUILTIN_TOOLS, appendTool]), ...opts.api },
  });
  const root = realpathSync(h.dir);
  const l: Layout = {
    root,
    folder: path.join(root, 'work'),
    home: path.join(root, 'home'),
    marker: path.join(root, 'PWNED'),
  };
  mkdirSync(l.folder, { recursive: true });
  mkdirSync(l.home, { recursive: true });
  git(l.folder, 'init', '-q');
  await h.api['sessions.update']({ id: h.sessionId, workingFolder: l.folder });
  return l;
}

function git(cwd: string, ...args: string[]): string {
  // No user or system config: only what the repository itself says can run.
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: path.join(cwd, '..', 'home'), GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** Runs one call that must not ask; its result. */
async function runs(name: string, args: Record<string, unknown>): Promise<StoredMessage> {
  const before = h.history().length;
  const eventsBefore = h.events.length;
  await send(name, args);
  await h.api.idle(h.sessionId);
  const asked = h.events.slice(eventsBefore).some((e) => e.type === 'tool.requested' && e.needsApproval);
  expect(asked).toBe(false);
  return h
    .history()
    .slice(before)
    .find((m) => m.role === 'tool')!;
}

const launchOf = (s: { id: string; name: string }) => ({
  id: s.id,
  name: s.name,
  transport: 'stdio' as const,
  command: 'python3',
  args: ['-m', 'mcp_time_srv'],
});

function neverSent(text: string): void {
  expect(JSON.stringify(h.llm.chatRequests().map((r) => r.body))).not.toContain(text);
}

describe('code that runs later asks, even inside the folder and under auto', () => {
  it('a git hook and core.fsmonitor: asked, and when denied `git status` runs nothing planted', async () => {
    const l = await setup();
    const hook = path.join(l.folder, '.git', 'hooks', 'pre-commit');
    const planted = await asks(
      'write_file',
      { path: '.git/hooks/pre-commit', content: `#!/bin/sh\ntouch ${l.marker}\n` },
      'deny',
    );
    expect(planted.req.access).toEqual({ path: hook, zone: 'protected', reason: 'git' });
    expect(planted.result.meta?.status).toBe('denied');
    expect(existsSync(hook)).toBe(false);

    const config = readFileSync(path.join(l.folder, '.git', 'config'), 'utf8');
    const evil = `${config}[core]\n\tfsmonitor = touch ${l.marker}\n`;
    const fsmonitor = await asks('write_file', { path: '.git/config', content: evil }, 'deny');
    expect(fsmonitor.req.access).toMatchObject({ zone: 'protected', reason: 'git' });
    git(l.folder, 'status');
    expect(existsSync(l.marker)).toBe(false);

    // The same write approved: git really runs it, so the check above could have failed.
    await asks('write_file', { path: '.git/config', content: evil }, 'approve');
    git(l.folder, 'status');
    expect(existsSync(l.marker)).toBe(true);
  });

  it('package.json, .vscode/tasks.json, .husky, CI workflows, .envrc, Makefile, .npmrc: each asks and says why', async () => {
    const l = await setup();
    const cases: [string, string][] = [
      ['package.json', 'package_json'],
      ['sub/pkg/package.json', 'package_json'],
      ['.vscode/tasks.json', 'editor_tasks'],
      ['.husky/pre-commit', 'git_hooks'],
      ['.github/workflows/ci.yml', 'ci_workflow'],
      ['.devcontainer/devcontainer.json', 'devcontainer'],
      ['.envrc', 'envrc'],
      ['Makefile', 'makefile'],
      ['.npmrc', 'package_manager_config'],
      ['.yarnrc.yml', 'package_manager_config'],
      ['node_modules/.bin/tsc', 'node_bin'],
    ];
    for (const [rel, reason] of cases) {
      const { req, result } = await asks(
        'write_file',
        { path: rel, content: '{"scripts":{"postinstall":"x"}}' },
        'deny',
      );
      expect(req.access, rel).toEqual({ path: path.join(l.folder, rel), zone: 'protected', reason });
      expect(existsSync(path.join(l.folder, rel)), rel).toBe(false);
      expect(result.meta?.status).toBe('denied');
    }
    // Another write tool, by its intent: asks too.
    const other = await asks('append_lines', { path: '.vscode/settings.json', content: '{}' }, 'deny');
    expect(other.req.access?.reason).toBe('editor_tasks');
    // A symlink does not hide a protected target; reading one does not ask; ordinary files do not ask.
    symlinkSync(path.join(l.folder, '.git', 'hooks'), path.join(l.folder, 'innocent'));
    const linked = await asks('write_file', { path: 'innocent/post-checkout', content: 'x' }, 'deny');
    expect(linked.req.access?.path).toBe(path.join(l.folder, '.git', 'hooks', 'post-checkout'));
    expect((await runs('read_file', { path: '.git/HEAD' })).content).toContain('ref:');
    await runs('write_file', { path: 'src/index.ts', content: 'export {};' });
    expect(existsSync(path.join(l.folder, 'src', 'index.ts'))).toBe(true);
  });

  it('a planted module is not what an MCP launcher runs: the server starts in its own folder', async () => {
    // Where the server starts, without the OS sandbox (which would also stop the control below
    // from writing its marker outside the folder): the folder alone must keep the plant from running.
    const l = await setup({ api: { sandbox: { force: 'none' } } });
    // What the model wrote into the working folder (all of it was allowed: an ordinary file).
    await runs('write_file', {
      path: 'mcp_time_srv.py',
      content: `open(${JSON.stringify(l.marker)}, 'w').write('ran')\n`,
    });
    const server = h.store.mcpServers.upsert({
      name: 'time',
      transport: 'stdio',
      command: 'python3',
      args: ['-m', 'mcp_time_srv'],
    });
    await h.api['chat.send']({ sessionId: h.sessionId, text: JSON.stringify({ name: 'list_dir', arguments: {} }) });
    await h.api.idle(h.sessionId);
    const info = (await h.api['mcp.servers.list']({})).servers[0]!;
    expect(info.runFolder).toBe(path.join(l.root, 'data', 'mcp', server.id));
    expect(info.status).toBe('error');
    expect(existsSync(l.marker)).toBe(false);
    // The control: started in the working folder (as before), the launcher does run the plant.
    await h.api['mcp.servers.upsert']({ ...launchOf(server), cwd: l.folder });
    await h.api['mcp.servers.restart']({ id: server.id });
    expect(existsSync(l.marker)).toBe(true);

    // A server the user points at a folder: the module it would run there is protected.
    const own = path.join(l.root, 'servers');
    mkdirSync(own);
    await h.api['mcp.servers.upsert']({ ...launchOf(server), cwd: own });
    const launch = await asks('write_file', { path: path.join(own, 'mcp_time_srv.py'), content: 'x' }, 'deny');
    expect(launch.req.access).toMatchObject({ zone: 'protected', reason: 'mcp_launch' });
  });
});

describe('credentials by what they are', () => {
  it('a symlinked ~/.ssh still asks when read by its real path; gh, pgpass, .envs/ ask under auto', async () => {
    const l = await setup();
    const real = path.join(l.home, 'dotfiles', 'ssh');
    mkdirSync(real, { recursive: true });
    writeFileSync(path.join(real, 'config'), 'IdentityFile SSH-CONFIG-SECRET');
    writeFileSync(path.join(real, 'id_rsa'), 'RSA-PRIVATE-KEY');
    symlinkSync(real, path.join(l.home, '.ssh'));
    const viaReal = await asks('read_file', { path: '~/dotfiles/ssh/config' }, 'deny');
    expect(viaReal.req.access).toEqual({
      path: path.join(real, 'config'),
      zone: 'credential',
      reason: 'credential_store',
    });
    const key = await asks('read_file', { path: path.join(real, 'id_rsa') }, 'deny');
    expect(key.req.access?.zone).toBe('credential');

    mkdirSync(path.join(l.home, '.config', 'gh'), { recursive: true });
    writeFileSync(path.join(l.home, '.config', 'gh', 'hosts.yml'), 'oauth_token: gho_GHHOSTSTOKEN');
    writeFileSync(path.join(l.home, '.pgpass'), 'db:5432:*:app:PGPASS-SECRET');
    mkdirSync(path.join(l.folder, '.envs', '.production'), { recursive: true });
    writeFileSync(path.join(l.folder, '.envs', '.production', '.postgres'), 'POSTGRES_PASSWORD=ENVS-SECRET');
    writeFileSync(path.join(l.folder, 'server.pem'), 'PEM-SECRET');
    for (const p of ['~/.config/gh/hosts.yml', '~/.pgpass', '.envs/.production/.postgres', 'server.pem']) {
      const { req } = await asks('read_file', { path: p }, 'deny');
      expect(req.access?.zone, p).toBe('credential');
    }
    for (const s of [
      'SSH-CONFIG-SECRET',
      'RSA-PRIVATE-KEY',
      'gho_GHHOSTSTOKEN',
      'PGPASS-SECRET',
      'ENVS-SECRET',
      'PEM-SECRET',
    ])
      neverSent(s);
  });

  it('.git/config and `git remote -v` reach the model with the remote token redacted', async () => {
    const l = await setup();
    git(l.folder, 'remote', 'add', 'origin', 'https://user:ghp_REMOTETOKEN123@github.com/acme/app.git');
    const read = await runs('read_file', { path: '.git/config' });
    expect(read.content).toContain('https://user:***@github.com/acme/app.git');
    const remote = await runs('shell', { command: 'git remote -v' });
    expect(remote.content).toContain('https://user:***@github.com/acme/app.git');
    neverSent('ghp_REMOTETOKEN123');
  });

  it('GITHUB_PAT, DB_PASS, MYSQL_PWD, SENTRY_DSN, SLACK_WEBHOOK_URL and connection strings never reach the shell', async () => {
    const planted: Record<string, string> = {
      GITHUB_PAT: 'ghp_PATVALUE',
      DB_PASS: 'DBPASSVALUE',
      MYSQL_PWD: 'MYSQLPWDVALUE',
      SENTRY_DSN: 'https://SENTRYKEY@o1.ingest.sentry.example/1',
      SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/T0/B0/SLACKHOOKVALUE',
      APP_CONN: 'Server=db;Database=app;User Id=sa;Password=CONNPASSVALUE;',
      ODBC_LIKE: 'Driver={x};Server=db;Uid=sa;pwd=ODBCPWDVALUE',
      TL_PLAIN_VISIBLE: 'plain-visible',
    };
    Object.assign(process.env, planted);
    try {
      await setup();
      const out = await runs('shell', { command: 'env' });
      expect(out.content).toContain('TL_PLAIN_VISIBLE=plain-visible');
      expect(out.content).toMatch(/^PWD=/m);
      for (const [name, value] of Object.entries(planted)) {
        if (name === 'TL_PLAIN_VISIBLE') continue;
        expect(out.content, name).not.toContain(`${name}=`);
        neverSent(value);
      }
    } finally {
      for (const name of Object.keys(planted)) delete process.env[name];
    }
  });
});

describe('the model is told the truth', () => {
  it("the system prompt names the session's working folder, not the app's own", async () => {
    const l = await setup({ api: { cwd: '/app-process-folder' } });
    await runs('list_dir', {});
    const body = h.llm.chatRequests().at(-1)!.body as { messages: { role: string; content: unknown }[] };
    const system = body.messages[0]!;
    expect(system.role).toBe('system');
    expect(String(system.content)).toContain(`Working directory: ${l.folder}.`);
    expect(String(system.content)).not.toContain('/app-process-folder');
  });
});
