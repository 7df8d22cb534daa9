import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseNotice } from '@threadline/protocol';
import { runGateCommand, type GateCliIo } from '../gate';

const dir = mkdtempSync(join(tmpdir(), 'tl-gate-'));
const desktop = join(dir, 'home', 'Desktop');
mkdirSync(desktop, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const factRow = (content: string, evidenceCount = 2) => ({
  id: `f-${content}`,
  sessionId: 's',
  category: 'artifact',
  content,
  status: 'active',
  pinned: false,
  source: 'cfpm_auto',
  confidence: 0.7,
  evidenceCount,
  lastValidatedAt: null,
  validationCommand: null,
  createdAt: 1,
  updatedAt: 1,
});
const write = (name: string, value: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof value === 'string' ? value : JSON.stringify(value));
  return p;
};

async function cli(argv: string[]) {
  let out = '';
  let err = '';
  const { existsSync, readFileSync } = await import('node:fs');
  const io: GateCliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    fileExists: existsSync,
    readFile: (p) => readFileSync(p, 'utf8'),
  };
  const code = await runGateCommand(argv, io);
  return { code, out, err };
}

describe('threadline-context gate', () => {
  it('takes facts as a person writes them: category and content only, plural categories, defaults filled', async () => {
    const facts = write('hand.json', [
      { category: 'artifacts', content: desktop },
      { category: 'goal', content: 'tidy up the report files', pinned: true },
      { category: 'note', content: 'old', status: 'stale' },
    ]);
    const r = await cli(['gate', facts, '--tool', 'shell', '--command', 'ls ~/Desktop', '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as { rewritten: boolean; command: string };
    expect(json.rewritten).toBe(true);
    expect(json.command).toBe(`ls ${desktop}`);
  });

  it.each([
    [[{ category: 'artifact', content: desktop }, { content: 'no category' }], /entry 2: field "category"/],
    [[{ category: 'artifact', content: '   ' }], /entry 1: field "content": must not be empty/],
    [[{ category: 'places', content: desktop }], /entry 1: field "category"/],
    [[{ category: 'artifact', content: desktop, pinned: 'yes' }], /entry 1: field "pinned"/],
    [[{ category: 'artifact', content: desktop, colour: 'red' }], /entry 1: unknown field "colour"/],
    [{ notFacts: [] }, /is not an array of facts/],
  ])('a truly invalid facts file exits 2 with one line naming the entry and field (%#)', async (value, line) => {
    const facts = write('bad-facts.json', value);
    const r = await cli(['gate', facts, '--tool', 'shell', '--command', 'ls ~/Desktop']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(line);
  });

  it('rewrites against a real folder on disk and prints the JSON contract', async () => {
    const facts = write('facts.json', [factRow(desktop)]);
    const r = await cli(['gate', facts, '--tool', 'shell', '--command', 'ls ~/Desktop', '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as { rewritten: boolean; command: string; notice: string | null };
    expect(json.rewritten).toBe(true);
    expect(json.command).toBe(`ls ${desktop}`);
    expect(parseNotice(json.notice)?.type).toBe('gate');
  });

  it('accepts the compact --json output shape and leaves the command alone when the folder is gone', async () => {
    const facts = write('compact.json', {
      view: [],
      memory: { facts: [factRow(join(dir, 'nowhere', 'Desktop'))], candidates: [] },
    });
    const r = await cli([facts, '--tool', 'shell', '--command', 'ls ~/Desktop', '--json']);
    expect(JSON.parse(r.out)).toEqual({
      rewritten: false,
      command: 'ls ~/Desktop',
      notice: null,
      reason: 'path_missing',
    });
  });

  it('honours --last-user re-verify requests', async () => {
    const facts = write('facts2.json', { facts: [factRow(desktop)] });
    const r = await cli([facts, '--tool', 'shell', '--command', 'ls ~/Desktop', '--last-user', '请重新验证', '--json']);
    expect(JSON.parse(r.out)).toMatchObject({ rewritten: false, reason: 'reverify_requested' });
  });

  it('--visibility takes the documented aliases', async () => {
    const facts = write('facts3.json', [factRow(desktop)]);
    const verbose = await cli([
      facts,
      '--tool',
      'shell',
      '--command',
      'ls ~/Desktop',
      '--visibility',
      'verbose',
      '--json',
    ]);
    expect(JSON.parse(verbose.out).notice).toContain('"verbosity":"debug"');
    const none = await cli([facts, '--tool', 'shell', '--command', 'ls ~/Desktop', '--visibility', 'none', '--json']);
    expect(JSON.parse(none.out)).toMatchObject({ rewritten: true, notice: null });
  });

  it('--help prints the usage and exits 0', async () => {
    const r = await cli(['gate', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: threadline-context gate <facts.json> --tool <name> --command <text>/);
  });

  it.each([
    [['--tool', 'shell', '--command', 'ls'], 'expected exactly one facts file'],
    [['F', '--command', 'ls'], '--tool is required'],
    [['F', '--tool', 'shell'], '--command is required'],
    [['F', '--tool', 'shell', '--command', 'ls', '--bogus'], 'unknown option --bogus'],
    [['NOTJSON', '--tool', 'shell', '--command', 'ls'], 'is not JSON'],
    [['BADSHAPE', '--tool', 'shell', '--command', 'ls'], 'entry 1: field "category"'],
    [['/nonexistent/facts.json', '--tool', 'shell', '--command', 'ls'], 'cannot read facts file'],
    [
      ['F', '--tool', 'shell', '--command', 'ls', '--visibility', 'loud'],
      "--visibility must be off, brief or debug (aliases: none, disabled, 0, verbose, full, 2), got 'loud'",
    ],
    [
      ['F', '--tool', 'shell', '--command', 'ls', '--strategy', 'magic'],
      "--strategy must be one of legacy_segmented, cfpm_memory_v1, progressive, priority_chain, got 'magic'",
    ],
  ])('bad input %j exits 2 with one line', async (argv, message) => {
    const resolved = argv.map((a) =>
      a === 'F'
        ? write('ok.json', [])
        : a === 'NOTJSON'
          ? write('bad.json', '{nope')
          : a === 'BADSHAPE'
            ? write('shape.json', [{ id: 1 }])
            : a,
    );
    const r = await cli(resolved);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n').length).toBe(1);
    expect(r.err).toContain(message);
  });
});
