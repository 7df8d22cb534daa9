import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 14 §4: the SDK retries a rate-limited request and waits as the provider asks; the user is
// told why nothing streams yet, and Stop ends the wait. The provider asks for 30 s each time, so
// the status stays until the test stops the turn (nothing here depends on timing).

test.use({
  fakeRules: {
    rules: [
      {
        match: { lastUserIncludes: 'busy provider' },
        reply: { error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after-ms': '30000' } } },
      },
    ],
  },
});

test('a rate-limited request says it waits and tries again; Stop ends the wait', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();

  await app.send('busy provider, first try');
  const status = page.getByTestId('retry-status');
  await expect(status).toHaveText('The provider is limiting requests; trying again in 30 s (attempt 1 of 3).');
  await app.shot('retry-status', 'en', 'light');
  await app.stopButton.click();
  await app.waitIdle();
  await expect(status).toHaveCount(0);

  await page.setViewportSize({ width: 480, height: 800 });
  await app.setLook('zh-CN', 'dark');
  await app.send('busy provider, second try');
  await expect(status).toHaveText('服务商正在限制请求，30 秒后重试（第 1 次，共 3 次）。');
  await app.shot('retry-status-narrow', 'zh-CN', 'dark');
  await app.stopButton.click();
  await app.waitIdle();
  await expect(status).toHaveCount(0);
});
