import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 16 §6: `/` opens a keyboard-navigable, localized menu of commands with one-line
// descriptions; a picked command runs, or goes into the input when it takes arguments.

test('the slash menu: filter, arrows, Enter, Tab, Esc, in English and Chinese', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  const menu = page.getByTestId('slash-menu');
  const items = page.getByTestId('slash-item');

  await app.composer.fill('/');
  await expect(menu).toBeVisible();
  await expect(items).toHaveCount(6);
  await expect(items.first()).toContainText('/compact [instructions]');
  await expect(items.first()).toHaveAttribute('aria-selected', 'true');
  await expect(app.composer).toHaveAttribute('aria-activedescendant', 'slash-compact');
  await app.shot('slash-menu', 'en', 'light');

  // Arrows move the choice, and wrap.
  await app.composer.press('ArrowDown');
  await expect(items.nth(1)).toHaveAttribute('aria-selected', 'true');
  await app.composer.press('ArrowUp');
  await app.composer.press('ArrowUp');
  await expect(items.last()).toHaveAttribute('aria-selected', 'true');
  await expect(items.last()).toHaveAttribute('data-command', 'help');

  // Esc closes the menu and leaves the text.
  await app.composer.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(app.composer).toHaveValue('/');

  // Typing filters; Enter runs /memory: the panel opens, the input empties.
  await app.composer.fill('/mem');
  await expect(items).toHaveCount(1);
  await app.composer.press('Enter');
  await expect(page.getByTestId('memory-panel')).toBeVisible();
  await expect(app.composer).toHaveValue('');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('memory-panel')).toHaveCount(0);

  // A command that takes arguments goes into the input (Tab), ready for them.
  await app.composer.fill('/co');
  await app.composer.press('Tab');
  await expect(app.composer).toHaveValue('/compact ');
  await expect(menu).toHaveCount(0);

  // /help lists the commands; /new starts a session.
  await app.composer.fill('/help');
  await app.composer.press('Enter');
  await expect(page.getByTestId('slash-help')).toContainText('/summarize');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('slash-help')).toHaveCount(0);
  const before = await app.sessions.count();
  await app.composer.fill('/new');
  await app.composer.press('Enter');
  await expect(app.sessions).toHaveCount(before + 1);
  // Nothing of this was sent as a message.
  const sessionId = await page.getByTestId('session-item').last().getAttribute('data-session-id');
  expect(await stack.rpc<unknown[]>('messages.list', { sessionId })).toEqual([]);

  // Localized.
  await app.setLook('zh-CN', 'dark');
  await app.composer.fill('/');
  await expect(items.first()).toContainText('/compact [说明]');
  await expect(items.nth(2)).toContainText('新建会话');
  await app.shot('slash-menu', 'zh-CN', 'dark');
  // Clicking runs a command too.
  await items.filter({ hasText: '/memory' }).click();
  await expect(page.getByTestId('memory-panel')).toBeVisible();
});
