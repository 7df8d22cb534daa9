import { flateBombPdf } from '@threadline/fake-llm/hostilePdfs';
import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 35 §4: an attachment whose reading stops at a limit is kept with what was read, and the
// composer says in one sentence which limit and what was kept, never a spinner that never ends.

test.describe.configure({ timeout: 300_000 });

test('a flate-bomb PDF stops at the memory limit and the composer says so in a sentence', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  const bomb = await flateBombPdf(300);
  await page.getByTestId('attach-input').setInputFiles({ name: 'bomb.pdf', mimeType: 'application/pdf', buffer: bomb });
  const chip = page.getByTestId('composer-attachment');
  await expect(chip).toHaveAttribute('data-status', 'ready', { timeout: 120_000 });
  const cuts = page.getByTestId('attachment-cuts');
  await expect(cuts).toHaveText(
    'bomb.pdf: No page could be read: reading stops at 256 MB of memory (the file may be built to expand without end).',
  );
  await app.composer.fill('What is in this file?');
  for (const width of [640, 1280]) {
    await page.setViewportSize({ width, height: 820 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await expect(cuts).toBeVisible();
      if (lang === 'zh-CN') await expect(cuts).toContainText('未能读取任何页面');
      await app.shot(`attach-cut-${width}`, lang, theme);
    }
  }
  await page.setViewportSize({ width: 1360, height: 860 });
  await app.setLook('en', 'light');
  // Sent, it reaches the model as a block saying what could not be read.
  await app.composer.press('Enter');
  await app.waitIdle();
  await expect(cuts).toHaveCount(0);
});
