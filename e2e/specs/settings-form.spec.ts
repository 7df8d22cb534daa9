import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 27: every typed setting is a form field checked by the protocol's settings schema. A bad
// value is refused beside the field with a sentence in the user's language and nothing is saved;
// a good one, applied with Enter or by leaving the field, is saved. Both languages, both themes,
// a narrow and a wide window.

const WORDS = {
  en: {
    label: 'Auto-compact threshold',
    threshold: 'Enter a whole number from 0 to 99.',
    names: '"not-a-name" is not a variable name',
  },
  'zh-CN': { label: '自动压缩阈值', threshold: '请输入 0 到 99 之间的整数。', names: '“not-a-name”不是有效的变量名' },
};

test('a bad setting is refused with its sentence, a good one is saved', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  const saved = async () => (await stack.rpc('settings.get', {})) as { compaction: { autoThreshold: number } };
  const before = (await saved()).compaction.autoThreshold;

  for (const width of [640, 1280]) {
    await page.setViewportSize({ width, height: 820 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await app.openSettings('context');
      const threshold = page.getByTestId('threshold-input');
      // The label names the field (it is what a screen reader says).
      await expect(page.getByLabel(WORDS[lang].label, { exact: true })).toHaveAttribute(
        'data-testid',
        'threshold-input',
      );
      await threshold.fill('150');
      await threshold.press('Enter');
      await expect(page.getByTestId('threshold-input-error')).toHaveText(WORDS[lang].threshold);
      await expect(threshold).toHaveAttribute('aria-invalid', 'true');
      expect((await saved()).compaction.autoThreshold).toBe(before);
      await app.shot(`settings-error-${width}`, lang, theme);
      // Put back with Esc in the field (closing Settings would keep it open on the refused value).
      await threshold.press('Escape');
      await expect(page.getByTestId('threshold-input-error')).toHaveCount(0);
      await app.closeSettings();
    }
  }

  // From the keyboard: typed over, applied with Enter, and the error goes.
  await app.openSettings('context');
  const threshold = page.getByTestId('threshold-input');
  await threshold.fill('150');
  await threshold.blur();
  await expect(page.getByTestId('threshold-input-error')).toBeVisible();
  await threshold.focus();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('70');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('threshold-input-error')).toHaveCount(0);
  await expect.poll(async () => (await saved()).compaction.autoThreshold).toBe(0.7);
  await app.closeSettings();

  // A list setting names the entry it refuses; leaving the field applies a good list.
  await app.setLook('zh-CN', 'light');
  await app.openSettings('general');
  const names = page.getByTestId('env-passthrough');
  await names.fill('HF_TOKEN, not-a-name');
  await names.blur();
  await expect(page.getByTestId('env-passthrough-error')).toContainText(WORDS['zh-CN'].names);
  for (const width of [640, 1280]) {
    await page.setViewportSize({ width, height: 820 });
    await names.scrollIntoViewIfNeeded();
    await app.shot(`settings-error-general-${width}`, 'zh-CN', 'light');
  }
  await names.fill('HF_TOKEN, SSH_AUTH_SOCK');
  await names.blur();
  await expect(page.getByTestId('env-passthrough-error')).toHaveCount(0);
  await expect
    .poll(async () => ((await stack.rpc('settings.get', {})) as { agent: { envPassthrough: string[] } }).agent)
    .toMatchObject({ envPassthrough: ['HF_TOKEN', 'SSH_AUTH_SOCK'] });
});

test('a model’s price is checked before it is saved', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  for (const [lang, theme] of LOOKS.slice(0, 2)) {
    for (const width of [640, 1280]) {
      await page.setViewportSize({ width, height: 820 });
      await app.setLook(lang, theme);
      await app.openSettings('usage');
      const row = page.getByTestId('price-fake-model');
      const inputs = row.locator('input');
      await inputs.nth(0).fill('-1');
      await inputs.nth(1).fill('');
      await inputs.nth(2).fill('2');
      await inputs.nth(2).press('Enter');
      await expect(page.getByTestId('price-fake-model-input-error')).toBeVisible();
      await expect(page.getByTestId('price-fake-model-cachedInput-error')).toBeVisible();
      await expect(page.getByTestId('price-fake-model-output-error')).toHaveCount(0);
      await row.scrollIntoViewIfNeeded();
      await app.shot(`settings-error-price-${width}`, lang, theme);
      await app.closeSettings();
    }
  }
  await app.openSettings('usage');
  const inputs = page.getByTestId('price-fake-model').locator('input');
  await inputs.nth(0).fill('1.5');
  await inputs.nth(1).fill('0.15');
  await inputs.nth(2).fill('2');
  await inputs.nth(2).press('Enter');
  const profiles = await stack.rpc<{ id: string; active: boolean }[]>('providers.list', {});
  const profileId = profiles.find((p) => p.active)!.id;
  await expect
    .poll(async () =>
      (await stack.rpc<{ model: string }[]>('usage.prices.list', { profileId })).find((e) => e.model === 'fake-model'),
    )
    .toEqual({ model: 'fake-model', source: 'profile', price: { input: 1.5, cachedInput: 0.15, output: 2 } });
  await expect(page.getByTestId('price-fake-model').getByRole('alert')).toHaveCount(0);
});
