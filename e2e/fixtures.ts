import { test as base, expect, type Page } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot, startProcess, tsxBin } from './support/processes';

/**
 * A fake-llm rules file (see packages/fake-llm/README.md); no rules = its default echo behaviour.
 * An object, not a bare array: Playwright reads an array given to `test.use` as `[value, options]`.
 */
export interface FakeRules {
  rules: unknown[];
  defaultReply?: unknown;
}

export interface Stack {
  /** The URL browser mode printed, token included. */
  url: string;
  token: string;
  fakeLlmUrl: string;
  dataDir: string;
  /** Calls an AppApi route over HTTP with the token, as the renderer does. */
  rpc<T = unknown>(route: string, input?: unknown): Promise<T>;
}

interface Options {
  fakeRules: FakeRules;
  fakeWindow: number;
  /** false: start without a provider, for the first-run setup screen. */
  withProvider: boolean;
  serverEnv: Record<string, string>;
  shellKind: 'browser' | 'electron';
}

export const test = base.extend<Options & { stack: Stack }>({
  fakeRules: [{ rules: [] }, { option: true }],
  fakeWindow: [128_000, { option: true }],
  withProvider: [true, { option: true }],
  serverEnv: [{}, { option: true }],
  shellKind: ['browser', { option: true }],
  stack: async ({ fakeRules, fakeWindow, withProvider, serverEnv }, use) => {
    const dir = mkdtempSync(join(tmpdir(), 'tl-e2e-'));
    const rulesFile = join(dir, 'rules.json');
    writeFileSync(rulesFile, JSON.stringify(fakeRules));
    const fake = await startProcess(
      tsxBin,
      [
        resolve(repoRoot, 'packages/fake-llm/src/cli.ts'),
        '--port',
        '0',
        '--rules',
        rulesFile,
        '--window',
        String(fakeWindow),
      ],
      {
        name: 'fake-llm',
        ready: /fake-llm listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/,
      },
    );
    const providerEnv: Record<string, string> = withProvider
      ? {
          THREADLINE_PROVIDER_URL: fake.match[1]!,
          THREADLINE_MODEL: 'fake-model',
          THREADLINE_CONTEXT_WINDOW: String(fakeWindow),
        }
      : {};
    const dataDir = join(dir, 'data');
    const server = await startProcess(
      tsxBin,
      [resolve(repoRoot, 'apps/server/src/cli.ts'), '--port', '0', '--data-dir', dataDir],
      {
        name: 'threadline server',
        ready: /^Threadline is running at (http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+))$/,
        // A home of its own: sessions work in <home>/Threadline, never in the real home of the box.
        env: { OPENAI_API_KEY: '', THREADLINE_PROVIDER_URL: '', HOME: join(dir, 'home'), ...providerEnv, ...serverEnv },
      },
    );
    const url = server.match[1]!;
    const token = server.match[3]!;
    const base = url.split('/?')[0]!;
    const stack: Stack = {
      url,
      token,
      fakeLlmUrl: fake.match[1]!,
      dataDir,
      async rpc<T>(route: string, input: unknown = {}) {
        const res = await fetch(`${base}/api/rpc/${route}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(input),
        });
        const body = (await res.json()) as { ok: boolean; data?: T; error?: { message: string } };
        if (!body.ok) throw new Error(`${route}: ${body.error?.message}`);
        return body.data as T;
      },
    };
    await use(stack);
    await server.stop();
    await fake.stop();
  },
});

export { expect };

/** Saves a screenshot under e2e/screenshots/ (kept out of git; CI keeps them as artifacts). */
export async function screenshot(page: Page, name: string): Promise<string> {
  const file = resolve(repoRoot, 'e2e/screenshots', `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}
