import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../cli.ts', import.meta.url));
const tsx = fileURLToPath(new URL('../../../../node_modules/.bin/tsx', import.meta.url));
let child: ChildProcess | null = null;
afterEach(() => {
  child?.kill('SIGTERM');
  child = null;
});

function start(args: string[]): Promise<{ line: string; out: () => string }> {
  child = spawn(tsx, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('\n')) {
        clearInterval(t);
        resolve({ line: out.split('\n')[0]!, out: () => out });
      }
    }, 20);
    child!.on('exit', (code) => {
      clearInterval(t);
      reject(new Error(`exited ${code}: ${err}`));
    });
  });
}

describe('fake-llm CLI', () => {
  it('prints one line with its URL and serves the rules file with the window and error style', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-llm-cli-'));
    const rules = join(dir, 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify({
        rules: [{ match: { lastUserIncludes: 'ping' }, reply: { content: 'pong' } }],
        defaultReply: { content: 'default' },
      }),
    );
    const { line, out } = await start([
      '--port',
      '0',
      '--rules',
      rules,
      '--window',
      '60',
      '--error-style',
      'anthropic',
    ]);
    expect(line).toMatch(/^fake-llm listening on http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const client = new OpenAI({ baseURL: line.replace('fake-llm listening on ', ''), apiKey: 'x', maxRetries: 0 });
    const r = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping' }] });
    expect(r.choices[0]!.message.content).toBe('pong');
    const d = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hello' }] });
    expect(d.choices[0]!.message.content).toBe('default');
    await expect(
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping '.repeat(100) }] }),
    ).rejects.toThrow(/prompt is too long: \d+ tokens > 60 maximum/);
    expect(out().trim().split('\n')).toHaveLength(1);
  });

  it('exits 2 with one clear line on a bad option', async () => {
    await expect(start(['--error-style', 'gemini'])).rejects.toThrow(
      /exited 2: fake-llm: --error-style must be one of/,
    );
  });
});
