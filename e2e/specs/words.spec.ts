import type { Page } from '@playwright/test';
import { onePagePdf } from '@threadline/fake-llm/hostilePdfs';
import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 37 §4: plain words in both languages — no "CFPM" or "gate" on a label, plurals and sizes
// that are right ("1 page", "44 B"), the first run in the browser's language, a sandbox text that
// is true ($TMPDIR is writable, /tmp is not), and nothing undone drawn struck through.

test.use({ actionTimeout: 20_000 });

/** The visible text of the page (what a user reads), whatever is open. */
const pageText = (page: Page): Promise<string> => page.evaluate(() => document.body.innerText);

test.describe('a browser set to Chinese', () => {
  test.use({ locale: 'zh-CN' });

  test('the first run is in Chinese, and Settings says it follows the system', async ({ page, stack }) => {
    const app = new AppPage(page);
    await app.open(stack.url);
    await app.waitReady();
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await expect(page.getByTestId('new-session')).toContainText('新建会话');
    expect(((await stack.rpc('settings.get', {})) as { language: string | null }).language).toBeNull();
    await app.openSettings('general');
    await expect(page.getByTestId('language-select').locator('option:checked')).toHaveText('跟随系统（简体中文）');
    await app.shot('words-first-run', 'zh-CN', 'light');
    // Picked, it is kept; "the system's" again follows the browser.
    await page.getByTestId('language-select').selectOption('en');
    await expect(page.locator('html')).toHaveAttribute('lang', 'en');
    await expect.poll(async () => ((await stack.rpc('settings.get', {})) as { language: string }).language).toBe('en');
    await page.getByTestId('language-select').selectOption('system');
    await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
    await expect.poll(async () => ((await stack.rpc('settings.get', {})) as { language: null }).language).toBeNull();
  });
});

test('sizes and plurals: a 44-byte file is "44 B", a one-page PDF "1 page"', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  const note = Buffer.from('The deploy key rotates on Fridays, at noon.\n');
  expect(note.length).toBe(44);
  await page.getByTestId('attach-input').setInputFiles([
    { name: 'notes.txt', mimeType: 'text/plain', buffer: note },
    { name: 'one.pdf', mimeType: 'application/pdf', buffer: onePagePdf('Hello') },
  ]);
  await expect(page.getByTestId('composer-attachment')).toHaveCount(2);
  for (const chip of await page.getByTestId('composer-attachment').all())
    await expect(chip).toHaveAttribute('data-status', 'ready');
  await app.send('Two files');
  await app.waitIdle();
  const files = app.userBubbles().last().getByTestId('message-file');
  await expect(files).toHaveText(['notes.txtText · 44 B', 'one.pdfPDF · 1 page']);
  await app.shot('words-attachments', 'en', 'light');
  await app.setLook('zh-CN', 'dark');
  await expect(files).toHaveText(['notes.txt文本 · 44 B', 'one.pdfPDF · 1 页']);
  await app.shot('words-attachments', 'zh-CN', 'dark');
});

test('Settings in plain words: no CFPM or gate, and the sandbox text says what is writable', async ({
  page,
  stack,
}) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  for (const [lang, theme] of LOOKS.slice(0, 2)) {
    await app.setLook(lang, theme);
    for (const tab of ['general', 'context'] as const) {
      await app.openSettings(tab);
      const text = await pageText(page);
      expect(text, `${lang} ${tab}`).not.toMatch(/CFPM|\bgate\b|闸门/i);
      if (tab === 'general') {
        expect(text).toContain('$TMPDIR');
        expect(text).toContain(lang === 'en' ? 'home hidden except toolchains' : '主文件夹被隐藏，只有工具链可读');
      } else expect(text).toContain(lang === 'en' ? 'Memory snapshot' : '记忆快照');
      await app.shot(`words-settings-${tab}`, lang, theme);
      await app.closeSettings();
    }
  }
});

test('an undone compaction is said, not struck through', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  for (let i = 1; i <= 6; i++) {
    await app.send(`note number ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(8)}`);
    await app.waitIdle();
  }
  await app.compactButton.click();
  const divider = app.dividers.first();
  await expect(divider).toHaveAttribute('data-active', 'true');
  await app.waitIdle();
  await divider.getByRole('button', { name: 'Undo' }).click();
  await expect(divider).toHaveAttribute('data-active', 'false');
  const title = divider.locator('.divider-title');
  await expect(title).toHaveText('Compaction undone');
  for (const el of [title, divider.locator('.divider-pill')])
    expect(await el.evaluate((e) => getComputedStyle(e).textDecorationLine)).toBe('none');
  await divider.scrollIntoViewIfNeeded();
  await app.shot('words-compaction-undone', 'en', 'light');
});
