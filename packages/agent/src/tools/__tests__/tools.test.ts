import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ToolRegistry, parseToolCall, runParsedTool, type ToolContext } from '../index';
import { READ_FILE_MAX_BYTES } from '../files';

const dir = mkdtempSync(path.join(tmpdir(), 'tl-tools-'));
// Hermetic shells: no login shell (the user's or the machine's login profile can take a minute)
// and a temp HOME whose profile files would print a marker if anything ran them.
const home = mkdtempSync(path.join(tmpdir(), 'tl-tools-home-'));
for (const f of ['.bash_profile', '.profile', '.bashrc']) writeFileSync(path.join(home, f), 'echo PROFILE-RAN\n');
const savedHome = process.env.HOME;
beforeAll(() => {
  process.env.HOME = home;
});
afterAll(() => {
  process.env.HOME = savedHome;
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function ctx(over: Partial<ToolContext> = {}): ToolContext {
  return {
    sessionId: 's1',
    cwd: dir,
    platform: process.platform,
    signal: new AbortController().signal,
    shellTimeoutMs: 10_000,
    // Not a login shell: the user's profile (a slow or locked pyenv, say) is not under test.
    loginShell: false,
    lookupToolOutput: () => null,
    latestTodos: () => null,
    ...over,
  };
}

/** Live (not zombie) processes whose command line is `sleep <arg>` (Linux /proc). */
function livingSleeps(arg: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmd === `sleep\0${arg}\0` && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  });
}

const registry = new ToolRegistry();
async function call(name: string, args: string, c = ctx()) {
  const parsed = parseToolCall(registry, { id: 'c1', type: 'function', function: { name, arguments: args } });
  if (!parsed.ok) return { ok: false, content: parsed.error };
  return runParsedTool(parsed.tool, parsed.args, c);
}

describe('tools', () => {
  it('exposes a JSON schema per tool', () => {
    const names = registry.specs().map((s) => s.function.name);
    expect(names).toEqual([
      'shell',
      'read_file',
      'write_file',
      'edit_file',
      'list_dir',
      'grep',
      'glob',
      'read_tool_output',
      'manage_todo_list',
    ]);
    for (const s of registry.specs()) expect(s.function.parameters.type).toBe('object');
    // Derived from the zod arguments: required as parsed, no `$schema`, no safe-integer noise.
    const edit = registry.specs().find((s) => s.function.name === 'edit_file')!.function.parameters;
    expect(edit.required).toEqual(['path', 'old_string', 'new_string']);
    expect(Object.keys(edit.properties)).toEqual(['path', 'old_string', 'new_string', 'replace_all']);
    expect(JSON.stringify(edit)).not.toContain('$schema');
    const read = registry.specs().find((s) => s.function.name === 'read_file')!.function.parameters;
    expect(read.properties.offset).toEqual({
      type: 'integer',
      minimum: 0,
      description: 'First line to read (0-based).',
    });
  });

  it('shell runs no login profile when loginShell is false', async () => {
    const r = await call('shell', JSON.stringify({ command: 'echo "home=$HOME"' }));
    expect(r.content).toContain(`home=${home}`);
    expect(r.content).not.toContain('PROFILE-RAN');
  });

  it('shell runs in the cwd and reports the exit code', async () => {
    const ok = await call('shell', JSON.stringify({ command: 'pwd; echo hi >&2' }));
    expect(ok.ok).toBe(true);
    expect(ok.content).toContain(dir);
    expect(ok.content).toContain('hi');
    expect(ok.content).toContain('exit code: 0');
    const bad = await call('shell', JSON.stringify({ command: 'exit 3' }));
    expect(bad.ok).toBe(false);
    expect(bad.content).toContain('exit code: 3');
  });

  it('shell timeout kills the process group', async () => {
    // A background child holds the output pipe open: the call only returns if the whole group died.
    const r = await call(
      'shell',
      JSON.stringify({ command: 'sleep 987.654 & sleep 987.654; echo never', timeoutSec: 1 }),
    );
    expect(r.ok).toBe(false);
    expect(r.content).toContain('timed out');
    expect(r.content).not.toContain('never');
    expect(livingSleeps('987.654')).toEqual([]);
  });

  it('shell stops when the turn is cancelled', async () => {
    const ac = new AbortController();
    const running = call('shell', JSON.stringify({ command: 'sleep 30.417' }), ctx({ signal: ac.signal }));
    // Cancelled once the command runs.
    await vi.waitFor(() => expect(livingSleeps('30.417')).toHaveLength(1), { timeout: 20_000 });
    ac.abort();
    const r = await running;
    expect(r.content).toContain('aborted');
    expect(livingSleeps('30.417')).toEqual([]);
  });

  it('shell does not pass the provider key or THREADLINE_* variables to commands', async () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.THREADLINE_PROVIDER_URL };
    process.env.OPENAI_API_KEY = 'sk-test-secret-4242';
    process.env.THREADLINE_PROVIDER_URL = 'http://127.0.0.1:9/v1';
    try {
      const r = await call('shell', JSON.stringify({ command: 'env' }), ctx());
      expect(r.ok).toBe(true);
      expect(r.content).toMatch(/^PATH=/m);
      expect(r.content).not.toContain('sk-test-secret-4242');
      expect(r.content).not.toMatch(/^(OPENAI_API_KEY|THREADLINE_)/m);
    } finally {
      for (const [k, v] of [
        ['OPENAI_API_KEY', saved.key],
        ['THREADLINE_PROVIDER_URL', saved.url],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('shell strips every secret-looking variable, keeping the pass-through list and the rest', async () => {
    const planted: Record<string, string> = {
      ANTHROPIC_API_KEY: 'sk-ant-planted-1-end',
      GITHUB_TOKEN: 'ghp-planted-2-end',
      AWS_SECRET_ACCESS_KEY: 'aws-planted-3-end',
      AWS_PROFILE: 'aws-profile-planted-4-end',
      AZURE_CLIENT_ID: 'azure-planted-5-end',
      GOOGLE_APPLICATION_CREDENTIALS: '/planted/gcp-6-end',
      DB_PASSWORD: 'pw-planted-7-end',
      MYSQL_PASSWD: 'pw-planted-8-end',
      SOME_CREDENTIALS: 'cred-planted-9-end',
      NPM_CONFIG__AUTH: 'npm-planted-10-end',
      MY_CLIENT_SECRET: 'secret-planted-11-end',
      DATABASE_URL: 'postgres://app:pw-planted-12-end@db.local/app',
      HF_TOKEN: 'hf-planted-13-end',
      TL_HARMLESS_VALUE: 'visible-14',
      PLAIN_URL: 'https://example.com/path',
    };
    const saved = Object.fromEntries(Object.keys(planted).map((k) => [k, process.env[k]]));
    Object.assign(process.env, planted);
    try {
      const r = await call(
        'shell',
        JSON.stringify({ command: 'env' }),
        ctx({ loginShell: false, envPassthrough: ['hf_token'] }),
      );
      expect(r.ok).toBe(true);
      for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) expect(r.content).not.toContain(`planted-${n}-end`);
      // Named in the pass-through list (any case), and harmless names, reach the child.
      expect(r.content).toMatch(/^HF_TOKEN=hf-planted-13-end$/m);
      expect(r.content).toMatch(/^TL_HARMLESS_VALUE=visible-14$/m);
      expect(r.content).toMatch(/^PLAIN_URL=https:\/\/example.com\/path$/m);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('shell joins a multi-byte character split across output chunks', async () => {
    // 你 = e4 bd a0, € = e2 82 ac: each written in two parts with a pause, so they arrive as two chunks.
    const command =
      "printf '\\xe4\\xbd'; sleep 0.2; printf '\\xa0\\n'; printf '\\xe2\\x82' >&2; sleep 0.2; printf '\\xac\\n' >&2";
    const r = await call('shell', JSON.stringify({ command }), ctx());
    expect(r.content).toContain('你');
    expect(r.content).toContain('€');
    expect(r.content).not.toContain('\uFFFD');
  });

  it('read_file reads at most the first 2 MiB of a file and says so', async () => {
    const line = '你'.repeat(100) + '\n'; // 301 bytes: the cap falls inside a character
    writeFileSync(path.join(dir, 'big.txt'), line.repeat(Math.ceil((3 * 1024 * 1024) / 301)));
    const r = await call('read_file', JSON.stringify({ path: 'big.txt', offset: 6960, limit: 50 }));
    expect(r.ok).toBe(true);
    expect(r.content).toContain(`only its first ${READ_FILE_MAX_BYTES} bytes`);
    expect(r.meta).toMatchObject({ capped: true, lines: 6968 });
    // The character cut by the cap is dropped, not turned into U+FFFD.
    expect(r.content).not.toContain('\uFFFD');
    const small = await call('read_file', JSON.stringify({ path: 'big.txt', limit: 1 }));
    expect(small.content.startsWith(`1\t${'你'.repeat(100)}`)).toBe(true);
  });

  it('write_file, read_file and list_dir work on real files', async () => {
    const w = await call('write_file', JSON.stringify({ path: 'sub/a.txt', content: 'one\ntwo\nthree' }));
    expect(w.ok).toBe(true);
    expect(readFileSync(path.join(dir, 'sub/a.txt'), 'utf8')).toBe('one\ntwo\nthree');
    const r = await call('read_file', JSON.stringify({ path: 'sub/a.txt', offset: 1, limit: 1 }));
    expect(r.content.startsWith('2\ttwo')).toBe(true);
    const l = await call('list_dir', JSON.stringify({}));
    expect(l.content).toContain('sub/');
  });

  it('turns malformed JSON, bad arguments, unknown tools and crashes into readable errors', async () => {
    const malformed = await call('shell', '{"command": "ls"');
    expect(malformed.ok).toBe(false);
    expect(malformed.content).toMatch(/not valid JSON/);
    const wrong = await call('shell', JSON.stringify({ cmd: 1 }));
    expect(wrong.content).toMatch(/invalid arguments for shell: command/);
    const unknown = await call('rm_rf', '{}');
    expect(unknown.content).toMatch(/unknown tool "rm_rf"/);
    const crash = await call('read_file', JSON.stringify({ path: 'missing.txt' }));
    expect(crash.ok).toBe(false);
    expect(crash.content).toMatch(/ENOENT/);
  });

  it('read_tool_output pages through a stored full output', async () => {
    const full = 'x'.repeat(50) + 'TAIL';
    const c = ctx({ lookupToolOutput: (id) => (id === 'call_9' ? full : null) });
    const first = await call('read_tool_output', JSON.stringify({ id: 'call_9', limit: 50 }), c);
    expect(first.content).toContain('call again with offset 50');
    const second = await call('read_tool_output', JSON.stringify({ id: 'call_9', offset: 50 }), c);
    expect(second.content.startsWith('TAIL')).toBe(true);
    const none = await call('read_tool_output', JSON.stringify({ id: 'nope' }), c);
    expect(none.ok).toBe(false);
  });

  it('manage_todo_list replaces and reads back the list', async () => {
    const set = await call(
      'manage_todo_list',
      JSON.stringify({ todos: [{ content: 'write tests', status: 'in_progress' }] }),
    );
    expect(set.content).toContain('[~] write tests');
    const read = await call(
      'manage_todo_list',
      '{}',
      ctx({ latestTodos: () => [{ content: 'ship', status: 'completed' }] }),
    );
    expect(read.content).toContain('[x] ship');
  });
});
