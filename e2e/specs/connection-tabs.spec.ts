import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';
import { repoRoot, startProcess, tsxBin, type Started } from '../support/processes';

// Issue 25. Chromium opens at most six HTTP/1.1 connections per host; with an event stream per
// tab the seventh tab never loaded. The tabs of a browser now share one stream: twenty tabs load,
// and a message sent from the first shows in all of them. And a page says when the runtime is gone.

test('twenty tabs of one browser all load and all receive a message sent from one', async ({ page, stack }) => {
  test.setTimeout(240_000);
  const first = new AppPage(page);
  await first.open(stack.url);
  await first.waitReady();
  await first.newSession();
  const tabs = [first];
  for (let i = 1; i < 20; i++) {
    const p = await page.context().newPage();
    const app = new AppPage(p);
    await app.open(stack.url);
    await app.waitReady();
    await app.sessions.first().click();
    tabs.push(app);
  }
  await first.send('hello from the first tab');
  for (const [i, app] of tabs.entries())
    await expect(app.messageList.getByText('hello from the first tab').first(), `tab ${i + 1}`).toBeVisible();
  await first.waitIdle();
  // The reply streamed to the first tab reaches the last one too.
  await expect(tabs[19]!.assistantMessages()).toHaveCount(1);
});

/** fake-llm and a server of our own: this test stops and restarts the server. */
async function startServer(dataDir: string, home: string, providerUrl: string, extra: string[] = []): Promise<Started> {
  return startProcess(tsxBin, [resolve(repoRoot, 'apps/server/src/cli.ts'), '--data-dir', dataDir, ...extra], {
    name: 'threadline server',
    ready: /^Threadline is running at (http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+))$/,
    env: {
      HOME: home,
      OPENAI_API_KEY: '',
      THREADLINE_PROVIDER_URL: providerUrl,
      THREADLINE_MODEL: 'fake-model',
      THREADLINE_CONTEXT_WINDOW: '128000',
    },
  });
}

test('a stopped runtime says how to get back; restarted on its data folder the page reconnects; another key is said', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const dir = mkdtempSync(join(tmpdir(), 'tl-e2e-stop-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(join(dir, 'rules.json'), JSON.stringify({ rules: [] }));
  const fake = await startProcess(
    tsxBin,
    [resolve(repoRoot, 'packages/fake-llm/src/cli.ts'), '--port', '0', '--rules', join(dir, 'rules.json')],
    { name: 'fake-llm', ready: /fake-llm listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/ },
  );
  const dataDir = join(dir, 'data');
  const servers: Started[] = [];
  try {
    let server = await startServer(dataDir, home, fake.match[1]!);
    servers.push(server);
    const app = new AppPage(page);
    const banner = page.getByTestId('connection-banner');
    await app.open(server.match[1]!);
    await app.waitReady();
    await app.newSession();
    await app.setLook('zh-CN', 'dark');
    await expect(banner).toHaveCount(0);

    await server.stop();
    await expect(banner).toHaveText(
      'Threadline 已停止。请重新启动它（pnpm serve，同一数据文件夹），此页面会自动重新连接；如果它打印了其他地址，请打开那个地址。',
    );
    await app.composer.fill('还在吗？');
    await expect(app.sendButton).toBeDisabled();
    await app.shot('connection-stopped', 'zh-CN', 'dark');
    await page.setViewportSize({ width: 640, height: 800 });
    await app.shot('connection-stopped-640', 'zh-CN', 'dark');
    await page.setViewportSize({ width: 1280, height: 860 });

    // Started again on the same data folder: the same address and key, so this page is back.
    server = await startServer(dataDir, home, fake.match[1]!);
    servers.push(server);
    expect(new URL(server.match[1]!).origin).toBe(new URL(page.url()).origin);
    await expect(banner).toHaveCount(0);
    await expect(app.sendButton).toBeEnabled();
    await app.composer.press('Enter');
    await app.waitIdle();
    await expect(app.assistantMessages()).toHaveCount(1);

    // Started with a key of its own: this page's is refused, and it says so.
    await server.stop();
    await expect(banner).toBeVisible();
    server = await startServer(dataDir, home, fake.match[1]!, ['--token', 'another-key-given-on-the-command-line']);
    servers.push(server);
    await expect(banner).toHaveText(
      'Threadline 已重新运行，但换了密钥（不同的 --token 或数据文件夹）：请打开它打印的地址。',
    );
    await app.shot('connection-unauthorized', 'zh-CN', 'dark');

    // The new address works; then the same in English, light.
    await app.open(server.match[1]!);
    await app.waitReady();
    await expect(banner).toHaveCount(0);
    await app.setLook('en', 'light');
    await server.stop();
    await expect(banner).toHaveText(
      'Threadline stopped. Start it again (pnpm serve, same data folder) and this page reconnects by itself; if it prints another address, open that one.',
    );
    await app.composer.fill('anyone there?');
    await expect(app.sendButton).toBeDisabled();
    await app.shot('connection-stopped', 'en', 'light');
    await page.setViewportSize({ width: 640, height: 800 });
    await app.shot('connection-stopped-640', 'en', 'light');
  } finally {
    for (const s of servers) await s.stop();
    await fake.stop();
  }
});
