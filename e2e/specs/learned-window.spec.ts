import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 22 point 5: the profile says 100,000 tokens, the model has 4,000. A paste over the real
// window: the provider's error teaches the window (a notice, and the profile form with its undo),
// the notice names the message and by how much, and "Cut it to fit and retry" gets an answer.

test.use({
  fakeWindow: 4_000,
  serverEnv: { THREADLINE_CONTEXT_WINDOW: '100000' },
});

const paste = (n: number) =>
  `Please read this log: ${Array.from({ length: n }, (_, i) => `line ${i} of the build output for module_${i}`).join('\n')}`;

test('the window learns from the provider; a message over it is named, cut and answered', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();

  for (const [lang, theme, width] of [
    ['en', 'light', 1280],
    ['zh-CN', 'dark', 640],
  ] as const) {
    await page.setViewportSize({ width, height: 860 });
    await app.setLook(lang, theme);
    await app.newSession();
    // A paste too long for AppPage.send's bubble check: sent as the user sends it.
    await app.composer.fill(paste(450));
    await app.composer.press('Enter');
    const chip = page.locator('[data-notice="compaction-message_too_large"]');
    await expect(chip).toHaveCount(1, { timeout: 30_000 });
    await app.waitIdle();
    await expect(app.assistantMessages()).toHaveCount(0);
    await expect(page.locator('[data-notice="compaction-window_learned"]').first()).toBeVisible();
    if (lang === 'en') await expect(chip).toContainText("more than the model's whole context window of 4,000");
    else await expect(chip).toContainText('比模型的整个上下文窗口 4,000 还多');
    await app.scrollToBottom();
    await app.shot(`learned-window-notice-${width}`, lang, theme);
    await chip.getByTestId('fit-message-cut').click();
    await app.waitIdle();
    await expect(chip.getByTestId('fit-message-actions')).toHaveCount(0);
    await expect(app.assistantMessages()).toHaveCount(1);
    await app.shot(`learned-window-cut-${width}`, lang, theme);

    await app.openSettings('providers');
    await page.getByTestId('provider-item').first().getByTestId('edit-profile').click();
    const learned = page.getByTestId('provider-learned-window');
    await expect(learned).toContainText('4,000');
    await app.shot(`learned-window-profile-${width}`, lang, theme);
    // Undo in the profile: the profile's own 100,000 again (so the next round learns it anew).
    await page.getByTestId('provider-learned-undo').click();
    await page.getByTestId('provider-save').click();
    await expect(page.getByTestId('provider-form')).toHaveCount(0);
    await page.getByTestId('provider-item').first().getByTestId('edit-profile').click();
    await expect(page.getByTestId('provider-learned-window')).toHaveCount(0);
    await app.closeSettings();
  }
});
