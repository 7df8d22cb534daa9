import { test, expect, type Stack } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 37's views in every look: the forms, overlays and Memory panel it changed, in English and
// Chinese, light and dark, at 1280 and 640 px (each language, theme and width twice across the
// four). What each view must do is asserted in its own spec (forms, overlays, memory-empty); here
// each is brought up in the look and checked to be on screen, then photographed.

test.use({ actionTimeout: 20_000 });
test.describe.configure({ timeout: 300_000 });

const WIDTHS = [1280, 640, 640, 1280] as const;

const fakeBase = (stack: Stack): string => stack.fakeLlmUrl.replace(/\/v1$/, '');

for (const [i, [lang, theme]] of LOOKS.entries()) {
  const width = WIDTHS[i]!;
  test(`issue 37's views at ${width} px, ${lang} ${theme}`, async ({ page, stack }) => {
    const res = await fetch(`${fakeBase(stack)}/_fake/config`, {
      method: 'POST',
      body: JSON.stringify({ models: ['fake-model', 'fake-large', 'fake-small'] }),
    });
    expect(res.status).toBe(200);
    await page.setViewportSize({ width, height: 800 });
    const app = new AppPage(page);
    await app.open(stack.url);
    await app.waitReady();
    await app.setLook(lang, theme);
    const shot = (name: string) => app.shot(`looks-${name}-${width}`, lang, theme);
    // In a narrow window the sidebar opened to reach Settings or a new session lays over the chat.
    const sidebarAway = async () => {
      const scrim = page.getByTestId('sidebar-scrim');
      if (await scrim.isVisible()) await page.mouse.click(width - 20, 400);
      await expect(scrim).toBeHidden();
    };

    // A refused setting: its sentence under it, the keyboard gone on to the next field.
    await app.openSettings('context');
    const threshold = page.getByTestId('threshold-input');
    await threshold.fill('150');
    await page.keyboard.press('Tab');
    await expect(page.getByTestId('threshold-input-error')).toBeVisible();
    await expect(threshold).not.toBeFocused();
    await threshold.scrollIntoViewIfNeeded();
    await shot('refused-setting');
    await threshold.press('Escape');
    await expect(page.getByTestId('threshold-input-error')).toHaveCount(0);

    // The provider form: the window's sentence, then the tested models as a picker.
    await page.getByTestId('settings-tab-providers').click();
    await page.getByTestId('edit-profile').first().click();
    const windowField = page.getByTestId('provider-window');
    const before = await windowField.inputValue();
    await windowField.fill('-5');
    await page.getByTestId('provider-save').click();
    const windowError = page.getByTestId('field-error-contextWindow');
    await expect(windowError).toBeVisible();
    await expect(windowField).toHaveValue('-5');
    await windowError.scrollIntoViewIfNeeded();
    await shot('provider-window');
    await windowField.fill(before);
    await page.getByTestId('provider-test').click();
    const pick = page.getByTestId('provider-model-pick');
    await expect(pick.locator('option:not([value=""])')).toHaveCount(3);
    await page.getByTestId('provider-test-result').scrollIntoViewIfNeeded();
    await shot('provider-models');
    await app.closeSettings();

    // An empty Memory panel says why.
    await app.newSession();
    await sidebarAway();
    await page.getByTestId('open-memory').click();
    await expect(page.getByTestId('memory-empty')).toBeVisible();
    await shot('memory-empty');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('memory-panel')).toHaveCount(0);

    // A session longer than the window: the jump button between the list and the composer, and
    // the context popover inside the window.
    for (let n = 1; n <= 4; n++) {
      await app.send(`note ${n}: ${'the quick brown fox jumps over the lazy dog '.repeat(12)}`);
      await app.waitIdle();
    }
    await app.messageList.evaluate((el) => (el.scrollTop = 0));
    await expect(page.locator('.jump-btn')).toBeVisible();
    await shot('jump');
    await app.meter.click();
    await expect(page.getByTestId('context-popover')).toBeInViewport({ ratio: 1 });
    await shot('context-popover');
    await page.keyboard.press('Escape');

    // The narrow window's sidebar over a scrim.
    if (width === 640) {
      if (!(await page.locator('.sidebar').isVisible())) await page.getByTestId('sidebar-toggle').click();
      await expect(page.getByTestId('sidebar-scrim')).toBeVisible();
      await shot('sidebar');
    }
  });
}
