import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { test, expect } from '../fixtures';
import { AppPage, type Lang, type Theme } from '../pages/AppPage';
import { repoRoot } from '../support/processes';

// Issue 17: add an MCP server in Settings (server-everything from the npm registry, over stdio),
// the fake provider calls its tools, the user approves, the result (text, image) shows on the card.
// Bad configurations each give one clear message and break nothing else.

const require = createRequire(import.meta.url);
const everything = require
  .resolve('@modelcontextprotocol/server-everything/package.json', { paths: [resolve(repoRoot, 'packages/agent')] })
  .replace(/package\.json$/, 'dist/index.js');

test.use({
  fakeRules: {
    rules: [
      {
        match: { lastUserIncludes: 'show the logo', hasTools: true },
        reply: { toolCalls: [{ name: 'everything__get-tiny-image', arguments: {} }] },
      },
      {
        match: { lastUserIncludes: 'echo please', hasTools: true },
        reply: { toolCalls: [{ name: 'everything__echo', arguments: { message: 'hello from e2e' } }] },
      },
      { match: { lastToolResultIncludes: 'Echo: hello from e2e' }, reply: { content: 'The server echoed it.' } },
      { match: { lastToolResultIncludes: 'image/png' }, reply: { content: 'That is the MCP logo.' } },
    ],
  },
});

const COMBOS: [Lang, Theme][] = [
  ['en', 'light'],
  ['en', 'dark'],
  ['zh-CN', 'light'],
  ['zh-CN', 'dark'],
];

test('add a server in Settings, approve its tool, see text and image on the card', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();

  await app.openSettings('tools');
  await page.getByTestId('mcp-add').click();
  await page.getByTestId('mcp-name').fill('everything');
  await page.getByTestId('mcp-command').fill(process.execPath);
  await page.getByTestId('mcp-args').fill(`${everything}\nstdio`);
  await page.getByTestId('mcp-secrets').fill('THREADLINE_E2E_TOKEN=not-shown-again');
  await page.getByTestId('mcp-save').click();
  const row = page.locator('[data-testid=mcp-item][data-name=everything]');
  await expect(row.getByTestId('mcp-status')).toHaveAttribute('data-status', 'stopped');
  // The secret is stored, never shown: only its name comes back.
  await row.getByTestId('mcp-edit').click();
  await expect(page.getByTestId('mcp-form')).toContainText('THREADLINE_E2E_TOKEN');
  await expect(page.getByTestId('mcp-form')).not.toContainText('not-shown-again');
  await page.getByTestId('mcp-form').getByRole('button', { name: 'Cancel' }).click();
  // Start it by keyboard: the row's buttons are reachable and work with Enter.
  await row.getByTestId('mcp-restart').focus();
  await page.keyboard.press('Enter');
  await expect(row.getByTestId('mcp-status')).toHaveAttribute('data-status', 'connected', { timeout: 30_000 });
  await expect(row.getByTestId('mcp-status')).toContainText(/Connected · \d+ tools/);
  await app.closeSettings();

  await app.newSession();
  await app.send('echo please');
  const card = app.toolCards.last();
  await expect(card).toHaveAttribute('data-status', 'waiting');
  await expect(card).toContainText('everything__echo');
  await card.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(card).toHaveAttribute('data-status', 'ok');
  // A finished card folds; opening it shows what the tool returned.
  await card.getByRole('button', { name: /everything__echo/ }).click();
  await expect(card.getByTestId('tool-output')).toHaveText('Echo: hello from e2e');
  await expect(page.getByText('The server echoed it.')).toBeVisible();
  await app.waitIdle();

  await app.send('show the logo');
  const imageCard = app.toolCards.last();
  await expect(imageCard).toHaveAttribute('data-status', 'waiting');
  await imageCard.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(imageCard).toHaveAttribute('data-status', 'ok');
  await imageCard.getByRole('button', { name: /everything__get-tiny-image/ }).press('Enter');
  await expect(imageCard.getByTestId('tool-output')).toContainText(/\[image image\/png, \d+ KB\]/);
  const img = imageCard.getByTestId('tool-images').locator('img');
  await expect(img).toHaveCount(1);
  // A real decoded image, not a broken one.
  expect(await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
  await app.waitIdle();

  // The meter counts the definitions and names the server behind them.
  await app.meter.click();
  await expect(page.getByTestId('meter-tool-servers')).toContainText('1 server');
  await app.shot('mcp-meter', 'en', 'light');
  await page.keyboard.press('Escape');

  for (const [lang, theme] of COMBOS) {
    await app.setLook(lang, theme);
    await app.scrollToBottom();
    await app.shot('mcp-tool-card', lang, theme);
  }
  await app.setLook('en', 'light');
});

test('bad configurations each give one clear message and break nothing else', async ({ page, stack }) => {
  const app = new AppPage(page);
  const good = await stack.rpc<{ server: { id: string } }>('mcp.servers.upsert', {
    name: 'everything',
    transport: 'stdio',
    command: process.execPath,
    args: [everything, 'stdio'],
  });
  await stack.rpc('mcp.servers.restart', { id: good.server.id });
  await app.open(stack.url);
  await app.waitReady();
  await app.openSettings('tools');

  const addAndStart = async (name: string, fill: () => Promise<void>) => {
    await page.getByTestId('mcp-add').click();
    await page.getByTestId('mcp-name').fill(name);
    await fill();
    await page.getByTestId('mcp-save').click();
    const row = page.locator(`[data-testid=mcp-item][data-name="${name}"]`);
    await row.getByTestId('mcp-restart').click();
    await expect(row.getByTestId('mcp-status')).toHaveAttribute('data-status', 'error', { timeout: 30_000 });
    return row.getByTestId('mcp-error');
  };

  // A command that does not exist.
  const missing = await addAndStart('missing', async () => {
    await page.getByTestId('mcp-command').fill('threadline-no-such-mcp-server');
  });
  await expect(missing).toHaveText('The command "threadline-no-such-mcp-server" was not found.');

  // A server that exits at once: its stderr says why.
  const dies = await addAndStart('dies', async () => {
    await page.getByTestId('mcp-command').fill(process.execPath);
    await page.getByTestId('mcp-args').fill('-e\nconsole.error("missing API_KEY"); process.exit(2)');
  });
  await expect(dies).toHaveText('The server "dies" exited before it answered.\nmissing API_KEY');

  // A URL where nothing listens.
  const refused = await addAndStart('remote', async () => {
    await page.getByTestId('mcp-transport').locator('[data-value=http]').click();
    await page.getByTestId('mcp-url').fill('http://127.0.0.1:9/mcp');
  });
  await expect(refused).toHaveText('Nothing answers at http://127.0.0.1:9/mcp (connection refused).');

  // A missing command in the form: refused with the reason, nothing saved.
  await page.getByTestId('mcp-add').click();
  await page.getByTestId('mcp-name').fill('empty');
  await page.getByTestId('mcp-save').click();
  await expect(page.getByTestId('mcp-form-error-command')).toContainText('a command is required');
  await page.getByTestId('mcp-form').getByRole('button', { name: 'Cancel' }).click();

  // Malformed import JSON.
  await page.getByTestId('mcp-import-open').click();
  await page.getByTestId('mcp-import-json').fill('{"mcpServers": {"x": ');
  await page.getByTestId('mcp-import-submit').click();
  await expect(page.getByTestId('mcp-import-error')).toHaveText(/^The text is not valid JSON/);
  // A good import right after, with one entry skipped for its reason.
  await page.getByTestId('mcp-import-json').fill(
    JSON.stringify({
      mcpServers: { fs: { command: 'npx', args: ['-y', 'x'] }, old: { type: 'sse', url: 'http://x/sse' } },
    }),
  );
  await page.getByTestId('mcp-import-submit').click();
  await expect(page.getByTestId('mcp-import-result')).toContainText('Imported 1 server.');
  await expect(page.getByTestId('mcp-import-result')).toContainText('Skipped old: SSE servers are not supported');

  // Nothing else broke: the good server is still connected, five rows, no stray errors.
  const goodRow = page.locator('[data-testid=mcp-item][data-name=everything]');
  await expect(goodRow.getByTestId('mcp-status')).toHaveAttribute('data-status', 'connected');
  await expect(page.getByTestId('mcp-item')).toHaveCount(5);
  await expect(page.getByTestId('mcp-error')).toHaveCount(3);
  await app.closeSettings();

  for (const [lang, theme] of COMBOS) {
    await app.setLook(lang, theme);
    await app.openSettings('tools');
    await app.shot('mcp-settings', lang, theme);
    await app.closeSettings();
  }
  await app.setLook('en', 'light');
  await page.setViewportSize({ width: 760, height: 860 });
  await app.openSettings('tools');
  await app.shot('mcp-settings-narrow', 'en', 'light');
});

test.describe('a small window', () => {
  test.use({ fakeWindow: 12_000 });

  test('tool definitions over the set share: the app says so and a server can sit out the session', async ({
    page,
    stack,
  }) => {
    const app = new AppPage(page);
    await stack.rpc('mcp.servers.upsert', {
      name: 'everything',
      transport: 'stdio',
      command: process.execPath,
      args: [everything, 'stdio'],
    });
    // server-everything's definitions are over a thousand tokens: more than 10 % of this window.
    await stack.rpc('settings.set', { patch: { mcp: { toolShareWarning: 0.1 } } });
    await app.open(stack.url);
    await app.waitReady();
    await app.newSession();
    await app.send('hello there');
    await app.waitIdle(45_000);
    const notice = page.getByTestId('tool-share-notice');
    await expect(notice).toContainText(
      /Tool definitions take \d+% of the context window \(more than 10%\), from 1 MCP server/,
    );
    await app.shot('mcp-share-notice', 'en', 'light');
    await notice.getByTestId('tool-share-choose').click();
    const box = notice.getByTestId('tool-share-server');
    await expect(box).toBeChecked();
    await box.press('Space');
    // Without the server the definitions are back under the share: the notice goes.
    await expect(notice).toHaveCount(0);
    await app.meter.click();
    await expect(page.getByTestId('meter-tool-servers')).toHaveCount(0);
    await page.keyboard.press('Escape');

    // The add form, for a look in both languages.
    await app.openSettings('tools');
    await page.getByTestId('mcp-add').click();
    await page.getByTestId('mcp-approval').locator('[data-value=some]').click();
    await app.shot('mcp-form', 'en', 'light');
  });
});
