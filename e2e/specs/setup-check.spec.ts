import { createServer } from 'node:net';
import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';
import { SetupPage } from '../pages/SetupPage';

// Issue 16 §4: "Save and start" tests the provider first and says what to fix beside the field
// (an empty key, an address where nothing answers); the user may still save anyway, and the
// provider error that follows is one sentence with a way to the profile.

test.use({ withProvider: false });

/** A local port nothing listens on (bound, then released), so connecting is refused at once. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

test('setup with an empty key and with an unreachable address', async ({ page, stack }) => {
  const app = new AppPage(page);
  const setup = new SetupPage(page);
  await app.open(stack.url);
  await setup.expectVisible();

  // ---- OpenAI without a key ----
  await page.getByTestId('preset-openai').click();
  await page.getByTestId('provider-save').click();
  await expect(page.getByTestId('field-error-apiKey')).toHaveText('This provider needs an API key: paste it here.');
  await expect(page.getByTestId('field-error-baseUrl')).toHaveCount(0);
  await setup.expectVisible();
  await app.shot('setup-missing-key', 'en', 'light');

  // ---- an address where nothing listens ----
  const port = await closedPort();
  const dead = `http://127.0.0.1:${port}/v1`;
  await setup.fill({ preset: 'custom', baseUrl: dead, model: 'fake-model', contextWindow: 32000 });
  await page.getByTestId('provider-save').click();
  await expect(page.getByTestId('field-error-baseUrl')).toHaveText(
    'Nothing answers at this address; check the URL and that the server is running.',
  );
  await expect(page.getByTestId('field-error-apiKey')).toHaveCount(0);
  await setup.expectVisible();
  await app.shot('setup-unreachable', 'en', 'light');
  // The same sentence in Chinese.
  await page.getByTestId('language-select').first().selectOption('zh-CN');
  await page.getByTestId('provider-save').click();
  await expect(page.getByTestId('field-error-baseUrl')).toHaveText('此地址没有响应，请检查 URL 以及服务是否在运行。');
  await app.shot('setup-unreachable', 'zh-CN', 'light');
  await page.getByTestId('language-select').first().selectOption('en');

  // ---- saved anyway: the first message fails with one sentence and a way to the fix ----
  await page.getByTestId('provider-save-anyway').click();
  await app.waitReady();
  await app.newSession();
  await app.send('hello');
  await app.waitIdle(60_000);
  const error = page.getByTestId('inline-error').last();
  await expect(error.locator('.inline-error-text')).toHaveText(
    new RegExp(`^Could not reach the provider at its address \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\)\\.$`),
  );
  await app.shot('provider-error', 'en', 'light');
  await error.getByTestId('open-profile').click();
  await expect(page.getByTestId('settings-page')).toBeVisible();
  await expect(page.getByTestId('settings-tab-providers')).toHaveClass(/\bon\b/);

  // The link opens the active profile's form, ready to fix: a fixed address passes and saves.
  await expect(page.getByTestId('provider-url')).toHaveValue(dead);
  await page.getByTestId('provider-save').click();
  await expect(page.getByTestId('field-error-baseUrl')).toBeVisible();
  await page.getByTestId('provider-url').fill(stack.fakeLlmUrl);
  await page.getByTestId('provider-save').click();
  await expect(page.getByTestId('provider-form')).toHaveCount(0);
  await expect(page.getByTestId('provider-item')).toContainText(stack.fakeLlmUrl);
});
