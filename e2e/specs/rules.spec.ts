import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 38: a rule granted "in this folder" on a card holds in a second session in the same folder
// (no card, the rule named on it); Settings → Rules shows where it came from and how often it
// decided a call, and revoking it there makes the next call ask again. Both languages, both themes,
// 640 and 1280 px.

test.use({
  fakeRules: {
    rules: [
      {
        match: { lastUserIncludes: 'read the quarterly report', hasTools: true },
        reply: { toolCalls: [{ name: 'read_file', arguments: { path: '../../outside/reports/q1.txt' } }] },
      },
      { match: { lastToolResultIncludes: 'revenue grew' }, reply: { content: 'Revenue grew.' } },
      { match: { lastToolResultIncludes: 'denied' }, reply: { content: 'I could not read it.' } },
    ],
  },
});

const WIDTHS = [1280, 640] as const;

test('a folder rule from a card holds in the next session; revoked in Settings, the call asks again', async ({
  page,
  stack,
}) => {
  const root = join(stack.dataDir, '..');
  mkdirSync(join(root, 'outside', 'reports'), { recursive: true });
  writeFileSync(join(root, 'outside', 'reports', 'q1.txt'), 'revenue grew 4%');
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();

  await app.send('Please read the quarterly report');
  const card = app.toolCards.last();
  await expect(card).toHaveAttribute('data-status', 'waiting');
  const remember = card.getByTestId('remember-rule');
  await expect(card.getByTestId('remember-match')).toContainText(join(root, 'outside', 'reports'));
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 860 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await remember.scrollIntoViewIfNeeded();
      await app.shot(`rules-card-${width}`, lang, theme);
    }
  }
  await page.setViewportSize({ width: 1280, height: 860 });
  await app.setLook('en', 'light');
  // Chosen with the keyboard: the scope radios, then the button.
  await card.getByTestId('remember-scope-session').focus();
  await page.keyboard.press('ArrowDown');
  await expect(card.getByTestId('remember-scope-folder')).toBeChecked();
  await expect(card.getByTestId('remember-allow')).toHaveText('Allow in this folder');
  await card.getByTestId('remember-allow').focus();
  await page.keyboard.press('Enter');
  await expect(card).toHaveAttribute('data-status', 'ok');
  await app.waitIdle();
  await expect(page.getByTestId('session-rules')).toContainText('1 rule');

  // A second session in the same folder: the same call runs with no card and names the rule.
  await app.newSession();
  await app.send('Please read the quarterly report again');
  await app.waitIdle();
  const ran = app.toolCards.last();
  await expect(ran).toHaveAttribute('data-status', 'ok');
  await ran.locator('.tool-head').click();
  const line = ran.getByTestId('tool-rule');
  await expect(line).toHaveAttribute('data-decision', 'allow');
  await expect(line).toContainText(join(root, 'outside', 'reports'));
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 860 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await page.getByTestId('session-rules').click();
      await expect(page.getByTestId('session-rule')).toHaveCount(1);
      await app.shot(`rules-ran-${width}`, lang, theme);
      await page.keyboard.press('Escape');
    }
  }
  await page.setViewportSize({ width: 1280, height: 860 });
  await app.setLook('en', 'light');

  // Settings → Rules: where it came from, how often it decided; revoked there.
  const row = page.getByTestId('rule-row');
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 860 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await app.openSettings('rules');
      await expect(row).toHaveCount(1);
      await app.shot(`rules-settings-${width}`, lang, theme);
      await app.closeSettings();
    }
  }
  await page.setViewportSize({ width: 1280, height: 860 });
  await app.setLook('en', 'light');
  await app.openSettings('rules');
  await expect(row.getByTestId('rule-hits')).toContainText('Decided 1 call');
  await expect(row).toContainText('From a card');
  await row.getByTestId('rule-revoke').click();
  await expect(page.getByTestId('rules-empty')).toBeVisible();
  await app.closeSettings();
  await expect(page.getByTestId('session-rules')).toHaveCount(0);

  await app.send('Please read the quarterly report once more');
  const asked = app.toolCards.last();
  await expect(asked).toHaveAttribute('data-status', 'waiting');
  await asked.getByTestId('deny').click();
  await app.waitIdle();
});
