import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../main';
import { repoRoot, transcriptsDir } from '../transcripts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'tl-context-cli-'));
const file = (name: string, content: string) => {
  const p = path.join(tmp, name);
  writeFileSync(p, content);
  return p;
};

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err };
}

// A session of 30 messages: 3 segments with 4 shell round trips each.
const messages: unknown[] = [{ role: 'system', content: 'You are an agent.' }];
let call = 0;
for (let s = 0; s < 3; s++) {
  messages.push({ role: 'user', content: `Task ${s}: edit src/app${s}.py` });
  for (let i = 0; i < 4; i++) {
    const id = `c${++call}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id,
          type: 'function',
          function: { name: 'shell', arguments: JSON.stringify({ command: `sed -i 's/a/b/' src/app${s}.py` }) },
        },
      ],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: `exit code: 0\n${'output line\n'.repeat(200)}` });
  }
  messages.push({ role: 'assistant', content: `Done with task ${s}.` });
}
const session = file('session.json', JSON.stringify({ messages }));

describe('threadline-context CLI', () => {
  it('count prints the tokens of a file (array or {messages})', async () => {
    // chars/4 models keep this file fast; the BPE encodings are covered by the tokens tests.
    const r = await run('count', session, '--json', '--model', 'llama3');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.messages).toBe(messages.length);
    expect(j.encoding).toBe('approx_chars_4');
    expect(j.tokens).toBeGreaterThan(1000);
    expect(j.window).toBe(8192);
    const arr = await run('count', file('arr.json', JSON.stringify(messages)), '--json', '--model', 'llama3');
    expect(JSON.parse(arr.out).tokens).toBe(j.tokens);
  });

  it('compact --json prints view, history, stats, steps, memory and notices', async () => {
    const r = await run(
      'compact',
      session,
      '--manual',
      '--strategy',
      'legacy_segmented',
      '--summary-text',
      'FIXED SUMMARY',
      '--window',
      '20000',
      '--model',
      'llama3',
      '--json',
    );
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.ok).toBe(true);
    expect(j.view.some((m: { content: string | null }) => m.content?.includes('FIXED SUMMARY'))).toBe(true);
    expect(j.history.length).toBe(messages.length + 2);
    expect(j.history.filter((m: { hidden: boolean }) => m.hidden).length).toBe(
      j.stats.originalCount - j.stats.compactedCount + 2,
    );
    expect(j.stats).toMatchObject({ originalTokens: j.tokensBefore, compactedTokens: j.tokensAfter });
    expect(j.steps.map((s: { name: string }) => s.name)).toEqual(['keep_head_tail', 'summarize', 'ledger']);
    expect(j.memory).toEqual({ facts: [], candidates: [] });
    expect(j.notices).toEqual([]);
  });

  it('cfpm_memory_v1 fills memory facts, candidates and the runtime notice, and injects the memory block', async () => {
    const r = await run(
      'compact',
      session,
      '--strategy',
      'cfpm_memory_v1',
      '--window',
      '9000',
      '--model',
      'llama3',
      '--json',
    );
    const j = JSON.parse(r.out);
    expect(j.ok).toBe(true);
    expect(j.memory.candidates.length).toBeGreaterThan(0);
    expect(j.notices[0]).toMatch(/^\[CFPM_RUNTIME_V1\] \{/);
    expect(j.view.some((m: { content: string | null }) => m.content?.includes('[CFPM_MEMORY_V1]'))).toBe(true);
  });

  it('compact passes --threshold to priority_chain: an auto run aims at (min(0.85, threshold) − 0.1) × window', async () => {
    const tokens = JSON.parse((await run('count', session, '--json', '--model', 'llama3')).out).tokens as number;
    const window = Math.ceil(tokens / 0.9);
    const at = async (threshold: string) =>
      JSON.parse(
        (
          await run(
            'compact',
            session,
            '--strategy',
            'priority_chain',
            '--threshold',
            threshold,
            '--window',
            String(window),
            '--model',
            'llama3',
            '--json',
          )
        ).out,
      );
    const j = await at('0.7');
    expect(j.trigger).toBe('auto');
    expect(j.target).toBe(Math.floor(window * 0.6));
    expect((await at('0.88')).target).toBe(Math.floor(window * 0.75));
  });

  it('does not compact under the auto threshold unless --manual, and still prints the stats', async () => {
    const j = JSON.parse((await run('compact', session, '--json', '--window', '1000000', '--model', 'llama3')).out);
    expect(j.ok).toBe(false);
    expect(j.reason).toMatch(/below_threshold/);
    expect(j.view.length).toBe(messages.length);
    expect(j.stats).toEqual({
      originalCount: messages.length,
      compactedCount: messages.length,
      removed: 0,
      reductionPercent: 0,
      originalTokens: j.tokensBefore,
      compactedTokens: j.tokensBefore,
      tokensSaved: 0,
    });
  });

  it('with no arguments prints the usage to stderr and exits 2; help prints it to stdout and exits 0', async () => {
    const none = await run();
    expect(none.code).toBe(2);
    expect(none.out).toBe('');
    expect(none.err.join('\n')).toMatch(/^usage: threadline-context <command>/);
    const help = await run('--help');
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: threadline-context <command>/);
    expect(help.err).toEqual([]);
  });

  it('the gate subcommand writes through the injected io, and a bad --visibility exits 2 with one line', async () => {
    const facts = file('facts.json', '[]');
    const ok = await run('gate', facts, '--tool', 'shell', '--command', 'ls ~/Desktop', '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ rewritten: false, command: 'ls ~/Desktop', notice: null });
    const bad = await run('gate', facts, '--tool', 'shell', '--command', 'ls', '--visibility', 'loud');
    expect(bad.code).toBe(2);
    expect(bad.out).toBe('');
    expect(bad.err).toHaveLength(1);
    expect(bad.err[0]).toMatch(/--visibility must be off, brief or debug .*got 'loud'/);
  });

  it('--provider-url makes a real HTTP summary call with the instructions', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let b = '';
      req.on('data', (d) => (b += d));
      req.on('end', () => {
        bodies.push(b);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'MODEL SUMMARY' } }] }));
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const r = await run(
        'compact',
        session,
        '--manual',
        '--window',
        '20000',
        '--provider-url',
        url,
        '--model',
        'qwen2.5-coder',
        '--instructions',
        'keep the sed commands',
        '--json',
      );
      const j = JSON.parse(r.out);
      // The model's summary, then what it missed of the ledger (checked without a model call).
      expect(j.summary).toMatch(
        /^MODEL SUMMARY\n\n\[The user's own messages[^\n]*\n--- The user[\s\S]*\n\n\[Ledger of the hidden range\]/,
      );
      const sent = JSON.parse(bodies[0]!);
      expect(sent.model).toBe('qwen2.5-coder');
      expect(sent.messages[1].content).toContain('keep the sed commands');
    } finally {
      server.close();
    }
  });

  it.each([
    ['not JSON', ['compact', file('bad.json', '{nope')], /not valid JSON/],
    [
      'wrong shape',
      ['count', file('shape.json', '{"messages": [{"role": "robot"}]}')],
      /expected an array of chat messages/,
    ],
    ['unknown strategy', ['compact', session, '--strategy', 'magic'], /unknown strategy 'magic'/],
    ['window 0', ['compact', session, '--window', '0'], /--window must be a positive integer/],
    ['negative window', ['compact', session, '--window=-5'], /--window must be a positive integer/],
    ['missing file', ['count', path.join(tmp, 'nope.json')], /no such file/],
    ['unknown option', ['count', session, '--frobnicate'], /unknown option --frobnicate/],
    ['unknown command', ['explode'], /unknown command 'explode'/],
  ])('bad input (%s) exits 2 with one line on stderr', async (_name, argv, re) => {
    const r = await run(...(argv as string[]));
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(re);
  });

  it('runs through the bin from the repository root and answers on a real transcript', () => {
    const root = repoRoot();
    const bin = path.join(root, 'packages/context/bin/threadline-context.mjs');
    // The fixture is vendored: a missing transcript is a failure, never a reason to test something else.
    const transcript = path.join(transcriptsDir(), 'openhands-safety-relocation.json');
    expect(existsSync(transcript), `${transcript} is missing`).toBe(true);
    const out = execFileSync(
      process.execPath,
      [bin, 'compact', transcript, '--manual', '--strategy', 'priority_chain', '--model', 'llama3', '--json'],
      { cwd: root, encoding: 'utf8' },
    );
    const j = JSON.parse(out);
    expect(typeof j.ok).toBe('boolean');
    expect(Array.isArray(j.view)).toBe(true);
  });
});
