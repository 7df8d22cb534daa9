import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 37 §6: an empty Memory panel says why it is empty and what would fill it: under a
// strategy that keeps no memory (the default), that only facts the user adds are there, with the
// way to the setting; under one that does, what the agent's work will put there.

test('the empty Memory panel says why, and leads to the setting that fills it', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await page.getByTestId('open-memory').click();
  const empty = page.getByTestId('memory-empty');
  await expect(empty).toContainText('does not keep memory');
  await expect(empty).toContainText('Segmented summary');
  await app.shot('memory-empty-default', 'en', 'light');
  await page.getByTestId('memory-open-strategy').click();
  await expect(page.getByTestId('settings-page')).toBeVisible();
  await expect(page.getByTestId('strategy-select')).toBeVisible();
  await page.getByRole('radio', { name: /Memory snapshot/ }).click();
  await expect(page.getByRole('radio', { name: /Memory snapshot/ })).toHaveAttribute('aria-checked', 'true');
  await app.closeSettings();
  if (!(await page.getByTestId('memory-panel').isVisible())) await page.getByTestId('open-memory').click();
  await expect(empty).toContainText('As the agent works');
  await expect(page.getByTestId('memory-open-strategy')).toHaveCount(0);
  await app.shot('memory-empty-learns', 'en', 'light');
  await app.setLook('zh-CN', 'dark');
  if (!(await page.getByTestId('memory-panel').isVisible())) await page.getByTestId('open-memory').click();
  await expect(empty).toContainText('智能体工作时');
  await app.shot('memory-empty-learns', 'zh-CN', 'dark');
});
