// edit_file, read_file's numbered line ranges, grep and glob (issue 23 points 1, 2): fake-llm over
// real HTTP asks for the calls, the real turn loop runs them on real files in a temp dir.
import { mkdirSync, readFileSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runningJobs } from '../worker/run';
import type { AppEvent, ToolDiff } from '@threadline/protocol';
import { callFromText, startHarness, toolCallsOf, type Harness } from './harness';

let h: Harness;
const { send, runs } = toolCallsOf(() => h);
afterEach(async () => h?.close());

let folder: string;
let root: string;

async function setup(settings: Parameters<typeof startHarness>[0] = {}): Promise<void> {
  h = await startHarness({ ...settings, llm: { defaultReply: callFromText } });
  root = realpathSync(h.dir);
  folder = path.join(root, 'work');
  for (const d of ['work', 'home', 'data', 'outside']) mkdirSync(path.join(root, d), { recursive: true });
  writeFileSync(path.join(root, 'data', 'secret.key'), 'SEALING-KEY-BYTES needle');
  await h.api['sessions.update']({ id: h.sessionId, workingFolder: folder });
}

function put(rel: string, content: string | Buffer): string {
  const p = path.join(folder, rel);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, content);
  return p;
}

/** What the provider received as the result of the last tool call. */
function lastResultSent(): string {
  const body = h.llm.chatRequests().at(-1)!.body as { messages: { role: string; content: unknown }[] };
  const msg = body.messages.at(-1)!;
  expect(msg.role).toBe('tool');
  return String(msg.content);
}

describe('edit_file', () => {
  it('changes exactly the matched text; the result carries the diff, the model a short sentence', async () => {
    await setup();
    const f = put('src/app.ts', 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const r = await runs('edit_file', { path: 'src/app.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' });
    expect(r.meta?.status).toBe('ok');
    expect(readFileSync(f, 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = 3;\n');
    expect(lastResultSent()).toBe(`edited ${f}: replaced 1 occurrence (at line 2).`);
    const diff = r.meta?.diff as ToolDiff;
    expect(diff).toMatchObject({ path: f, added: 1, removed: 1, created: false, moreLines: 0 });
    expect(diff.patch.split('\n')).toEqual([
      '@@ -1,3 +1,3 @@',
      ' const a = 1;',
      '-const b = 2;',
      '+const b = 20;',
      ' const c = 3;',
    ]);
    // `$&` in new_string is literal text, not a replacement pattern.
    await runs('edit_file', { path: 'src/app.ts', old_string: 'const c = 3;', new_string: 'const c = "$&";' });
    expect(readFileSync(f, 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = "$&";\n');
  });

  it('is refused, the file untouched to the byte, when old_string is absent or not unique', async () => {
    await setup();
    const text = 'x = 1\ny = 2\nx = 1\n';
    const f = put('twice.txt', text);
    const absent = await runs('edit_file', { path: 'twice.txt', old_string: 'z = 9', new_string: 'z = 10' });
    expect(absent.meta?.status).toBe('error');
    expect(absent.content).toContain('old_string was not found');
    expect(readFileSync(f, 'utf8')).toBe(text);
    const twice = await runs('edit_file', { path: 'twice.txt', old_string: 'x = 1', new_string: 'x = 5' });
    expect(twice.meta?.status).toBe('error');
    expect(twice.content).toContain('occurs 2 times');
    expect(twice.content).toContain('at lines 1, 3');
    expect(readFileSync(f, 'utf8')).toBe(text);
    expect(lastResultSent()).toContain('occurs 2 times');
    const all = await runs('edit_file', {
      path: 'twice.txt',
      old_string: 'x = 1',
      new_string: 'x = 5',
      replace_all: true,
    });
    expect(all.meta?.status).toBe('ok');
    expect(readFileSync(f, 'utf8')).toBe('x = 5\ny = 2\nx = 5\n');
  });

  it('keeps CRLF line ends when old_string spans lines written with LF', async () => {
    await setup();
    const f = put('win.txt', 'one\r\ntwo\r\nthree\r\n');
    await runs('edit_file', { path: 'win.txt', old_string: 'one\ntwo', new_string: 'one\nTWO' });
    expect(readFileSync(f, 'utf8')).toBe('one\r\nTWO\r\nthree\r\n');
  });

  it('outside the folder, the approval card shows the diff before anything is written', async () => {
    await setup();
    const target = path.join(root, 'outside', 'conf.ini');
    writeFileSync(target, 'mode=slow\nlevel=1\n');
    const before = h.events.length;
    await send('edit_file', { path: target, old_string: 'mode=slow', new_string: 'mode=fast' });
    const req = await h.waitFor(
      'tool.requested',
      (e: Extract<AppEvent, { type: 'tool.requested' }>) => h.events.indexOf(e) >= before && e.needsApproval,
    );
    expect(req.access).toEqual({ path: target, zone: 'outside' });
    expect(req.diff?.patch).toContain('-mode=slow\n+mode=fast');
    const state = await h.api['chat.state']({ sessionId: h.sessionId });
    expect(state.pending[0]?.diff?.patch).toContain('+mode=fast');
    expect(readFileSync(target, 'utf8')).toBe('mode=slow\nlevel=1\n');
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: req.toolCall.id, decision: 'deny' });
    await h.api.idle(h.sessionId);
    expect(readFileSync(target, 'utf8')).toBe('mode=slow\nlevel=1\n');
  });

  it('write_file over an existing file shows its diff; a new file none', async () => {
    await setup();
    put('a.txt', 'keep\nold\n');
    const over = await runs('write_file', { path: 'a.txt', content: 'keep\nnew\n' });
    expect((over.meta?.diff as ToolDiff).patch).toContain('-old\n+new');
    const fresh = await runs('write_file', { path: 'b.txt', content: 'hello\n' });
    expect(fresh.meta?.diff).toBeUndefined();
  });
});

describe('read_file', () => {
  it('numbers its lines and reads a line range', async () => {
    await setup();
    put('ten.txt', Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n'));
    const r = await runs('read_file', { path: 'ten.txt', offset: 8, limit: 3 });
    expect(r.content!.split('\n').slice(0, 3)).toEqual([' 9\tline 9', '10\tline 10', '11\tline 11']);
    expect(r.content).toContain('[lines 9-11 of 12; pass offset to read more]');
  });
});

describe('read_file of a long file', () => {
  it('the cut in its middle names the lines left out and the read_file call that reads them (issue 37 item 9)', async () => {
    await setup();
    const lines = Array.from({ length: 1500 }, (_, i) => `line ${i + 1}: ${'lorem ipsum dolor sit amet '.repeat(3)}`);
    const file = put('long.txt', lines.join('\n') + '\n');
    await runs('read_file', { path: 'long.txt' });
    const sent = lastResultSent();
    const m = /\[… lines (\d+)-(\d+) left out here \(\d+ tokens\); read them with read_file (\{[^}]*\}) …\]/.exec(sent);
    expect(m).not.toBeNull();
    const [from, to] = [Number(m![1]), Number(m![2])];
    const args = JSON.parse(m![3]!) as { path: string; offset: number; limit: number };
    expect(args).toEqual({ path: file, offset: from - 1, limit: to - from + 1 });
    // Whole lines on both sides of the marker: the line before it is `from - 1`, the one after `to + 1`.
    const around = sent.split('\n');
    const at = around.findIndex((l) => l.startsWith('[… lines'));
    expect(around[at - 1]!.trimStart()).toBe(`${from - 1}\t${lines[from - 2]}`);
    expect(around[at + 1]!.trimStart()).toBe(`${to + 1}\t${lines[to]}`);
    expect(sent).not.toContain('read_tool_output');
    // The call the marker names reads exactly the lines left out (its own cut aside).
    await runs('read_file', args);
    const next = lastResultSent();
    const firstLine = next.split('\n').find((l) => /^ *\d+\t/.test(l))!;
    expect(firstLine.trimStart()).toBe(`${from}\t${lines[from - 1]}`);
  });
});

describe('grep', () => {
  it('finds a string in a tree, skipping a .gitignored folder, binary files and credential files', async () => {
    await setup();
    put('.gitignore', 'build/\n*.log\n');
    mkdirSync(path.join(folder, '.git'));
    put('src/main.ts', 'import x from "y";\nconst needle = 42;\n');
    put('src/deep/util.ts', '// Needle in a comment\n');
    put('build/out.js', 'var needle = 42;\n');
    put('debug.log', 'needle in a log\n');
    put('image.bin', Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]));
    put('.env', 'TOKEN=needle-secret\n');
    const r = await runs('grep', { pattern: 'needle' });
    expect(r.meta?.status).toBe('ok');
    expect(r.content!.split('\n')[0]).toBe('src/main.ts:2:const needle = 42;');
    expect(r.content).not.toContain('build/out.js');
    expect(r.content).not.toContain('debug.log');
    expect(r.content).not.toContain('util.ts'); // case matters unless ignore_case
    expect(r.content).toContain('1 binary file skipped');
    expect(r.content).toContain("1 entry in credential places or Threadline's data folder skipped");
    expect(JSON.stringify(h.llm.chatRequests().map((q) => q.body))).not.toContain('needle-secret');
    const i = await runs('grep', { pattern: 'NEEDLE', ignore_case: true, glob: '*.ts' });
    // Only *.ts files: the .env is not one, so nothing was skipped.
    expect(i.content!.split('\n')).toEqual([
      'src/main.ts:2:const needle = 42;',
      'src/deep/util.ts:1:// Needle in a comment',
    ]);
  });

  it('over a tree holding the data folder, approved, skips it rather than leak it', async () => {
    await setup();
    put('a.txt', 'needle here\n');
    const before = h.events.length;
    await send('grep', { pattern: 'needle|SEALING', path: '..' });
    const req = await h.waitFor(
      'tool.requested',
      (e: Extract<AppEvent, { type: 'tool.requested' }>) => h.events.indexOf(e) >= before && e.needsApproval,
    );
    expect(req.access).toEqual({ path: root, zone: 'outside' });
    await h.api['chat.approve']({ sessionId: h.sessionId, toolCallId: req.toolCall.id, decision: 'approve' });
    await h.api.idle(h.sessionId);
    const sent = lastResultSent();
    expect(sent).toContain('a.txt:1:needle here'); // paths inside the working folder are relative to it
    expect(sent).not.toContain('SEALING');
    expect(sent).toMatch(/\d+ entr(y|ies) in credential places or Threadline's data folder skipped/);
  });

  it('caps the matches shown and says how many more; a bad pattern is an error the model reads', async () => {
    await setup();
    put('many.txt', Array.from({ length: 130 }, (_, i) => `hit ${i}`).join('\n'));
    const r = await runs('grep', { pattern: '^hit' });
    expect(r.content!.split('\n').filter((l) => l.startsWith('many.txt:'))).toHaveLength(100);
    expect(r.content).toContain('[… 30 more matches not shown; narrow the pattern, path or glob]');
    expect(r.meta?.matches).toBe(130);
    const bad = await runs('grep', { pattern: '(' });
    expect(bad.meta?.status).toBe('error');
    expect(bad.content).toContain('invalid regular expression');
  });
});

describe('grep and glob obey the reach of read_file (issue 34 point 4)', () => {
  it('a link to a file out of the folder is not followed; a link inside it is', async () => {
    await setup();
    const secret = path.join(root, 'outside', 'secret.txt');
    writeFileSync(secret, 'needle OUTSIDE-SECRET\n');
    symlinkSync(secret, path.join(folder, 'leak.txt'));
    put('real.txt', 'needle inside\n');
    symlinkSync(path.join(folder, 'real.txt'), path.join(folder, 'alias.txt'));
    const r = await runs('grep', { pattern: 'needle' });
    expect(r.content).not.toContain('OUTSIDE-SECRET');
    expect(r.content).toContain('alias.txt:1:needle inside');
    expect(r.content).toContain('real.txt:1:needle inside');
    expect(r.content).toContain('1 link out of the working folder not followed (read_file asks for them)');
    const g = await runs('glob', { pattern: '*.txt' });
    expect(g.content).not.toContain('leak.txt');
    expect(g.content).toContain('alias.txt');
  });

  it('Stop ends a search stuck in its pattern at once, and its worker with it', async () => {
    await setup();
    put('input.txt', `${'a'.repeat(48)}!\n`);
    await send('grep', { pattern: '^(a+)+$' });
    await vi.waitFor(() => expect(runningJobs()).toBe(1), { timeout: 30_000 });
    expect(await h.api['chat.cancel']({ sessionId: h.sessionId })).toEqual({ cancelled: true });
    expect(runningJobs()).toBe(0);
    const tool = h.history().find((m) => m.role === 'tool')!;
    expect(tool.meta?.status).toBe('aborted');
  });
});

describe('glob', () => {
  it('lists files by pattern, newest first, .gitignore respected, capped with a count', async () => {
    await setup();
    put('.gitignore', 'dist/\n');
    const t = Date.UTC(2026, 0, 1) / 1000;
    const files = ['old.md', 'docs/mid.md', 'docs/new.md', 'dist/gen.md', 'code.ts'];
    files.forEach((f, i) => utimesSync(put(f, f), t + i * 60, t + i * 60));
    const r = await runs('glob', { pattern: '*.md' });
    expect(r.content!.split('\n')).toEqual(['docs/new.md', 'docs/mid.md', 'old.md']);
    const sub = await runs('glob', { pattern: 'docs/*.md' });
    expect(sub.content!.split('\n')).toEqual(['docs/new.md', 'docs/mid.md']);
    for (let i = 0; i < 103; i++) put(`gen/f${i}.txt`, 'x');
    const capped = await runs('glob', { pattern: 'gen/**' });
    expect(capped.content!.split('\n').filter((l) => l.startsWith('gen/'))).toHaveLength(100);
    expect(capped.content).toContain('[… 3 more files not shown; narrow the pattern or path]');
  });
});

describe('CFPM memory and the new tools', () => {
  it('an edit_file is a changed file, and the files a grep found are artifacts', async () => {
    await setup({ settings: { compaction: { strategy: 'cfpm_memory_v1' } } });
    put('src/parser.ts', 'export const mode = "slow";\n');
    put('lib/strings.ts', '// mode docs\n');
    await runs('edit_file', { path: 'src/parser.ts', old_string: '"slow"', new_string: '"fast"' });
    await runs('grep', { pattern: 'mode' });
    const facts = h.store.memory.facts(h.sessionId);
    const has = (category: string, content: string) =>
      facts.some((f) => f.category === category && f.content === content && f.status === 'active');
    expect(has('verified_action', 'edited src/parser.ts')).toBe(true);
    expect(has('artifact', 'lib/strings.ts')).toBe(true);
  });
});
