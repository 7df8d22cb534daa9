import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { test, expect, type Stack } from '../fixtures';
import { AppPage, type Lang, type Theme } from '../pages/AppPage';

// Issue 40: the project memory's inbox and panel. A session verifies a command and a file and the
// user gives a standing instruction; the inbox lists them with where they came from; the user
// accepts and rejects by keyboard; the next session in the same folder gets the accepted facts in
// its first request (the fake model answers differently when the system prompt holds them).
// Screenshots in both languages and themes, at 640 and 1280 px.

test.use({
  actionTimeout: 20_000,
  fakeRules: {
    rules: [
      {
        match: { lastUserIncludes: 'verify the project', hasTools: true },
        reply: {
          toolCalls: [
            { name: 'shell', arguments: { command: 'npm test' } },
            { name: 'read_file', arguments: { path: 'src/app.ts' } },
          ],
        },
      },
      {
        match: { lastUserIncludes: 'what do you know', systemIncludes: '`npm test` (test)' },
        reply: { content: 'The project memory says: tests run with npm test.' },
      },
      { match: { lastUserIncludes: 'what do you know' }, reply: { content: 'Nothing about this project yet.' } },
      {
        match: { lastUserIncludes: 'which files', systemIncludes: 'src/app.ts' },
        reply: { content: 'I know src/app.ts.' },
      },
      { match: { lastUserIncludes: 'which files' }, reply: { content: 'No file known.' } },
    ],
    defaultReply: { content: 'Noted.' },
  },
});

test.describe.configure({ timeout: 300_000 });

const LOOKS: [Lang, Theme][] = [
  ['en', 'light'],
  ['en', 'dark'],
  ['zh-CN', 'light'],
  ['zh-CN', 'dark'],
];

/** A project folder with a test script and a source file, beside the stack's data folder. */
function projectFolder(stack: Stack): string {
  const folder = join(dirname(stack.dataDir), 'shop');
  mkdirSync(join(folder, 'src'), { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'shop', scripts: { test: 'echo 3 passed' } }));
  writeFileSync(join(folder, 'src', 'app.ts'), 'export const app = 1;\n');
  return folder;
}

async function sessionIn(stack: Stack, title: string, folder: string): Promise<string> {
  const s = await stack.rpc<{ id: string }>('sessions.create', { title, workingFolder: folder });
  // Commands run without a card here: the cards are not what this test is about.
  await stack.rpc('rules.save', {
    decision: 'allow',
    match: { kind: 'command', tool: 'shell', words: [], more: true, sandbox: 'also_outside' },
    scope: { kind: 'session', sessionId: s.id },
  });
  return s.id;
}

async function openSession(page: Page, app: AppPage, title: string): Promise<void> {
  if (!(await app.session(title).first().isVisible())) await page.getByTestId('sidebar-toggle').click();
  await app.session(title).first().locator('.session-main').click();
  await expect(page.getByTestId('chat-title')).toHaveText(title);
}

/** The Memory panel open on its project tab. */
async function projectTab(page: Page): Promise<Locator> {
  const panel = page.getByTestId('memory-panel');
  if ((await panel.count()) === 0) await page.getByTestId('open-memory').click();
  await panel.getByTestId('memory-tab-project').click();
  return panel;
}

/** The project tab in every language and theme, at each width, once `ready` is visible; then English, light, 1280 px. */
async function shotEveryLook(
  page: Page,
  app: AppPage,
  name: string,
  widths: readonly number[],
  ready: (panel: Locator) => Locator,
): Promise<void> {
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    const panel = await projectTab(page);
    for (const width of widths) {
      await page.setViewportSize({ width, height: 800 });
      await expect(ready(panel)).toBeVisible();
      await app.shot(`${name}-${width}`, lang, theme);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  await app.setLook('en', 'light');
  await projectTab(page);
}

test('the project inbox and panel: accept and reject by keyboard, the next session knows', async ({ page, stack }) => {
  const app = new AppPage(page);
  const folder = projectFolder(stack);
  await sessionIn(stack, 'Checkout work', folder);
  await page.setViewportSize({ width: 1280, height: 800 });
  await app.open(stack.url);
  await openSession(page, app, 'Checkout work');

  await app.send('verify the project');
  await app.waitIdle();
  await app.send('From now on, always run npm test before you say done.');
  await app.waitIdle();
  await app.send('We use tabs in this repo.');
  await app.waitIdle();

  // The Memory button says what waits; the panel opens on the project's inbox.
  await expect(page.getByTestId('memory-inbox-badge')).toHaveText('4');
  await page.getByTestId('open-memory').click();
  const panel = page.getByTestId('memory-panel');
  await expect(panel.getByTestId('memory-tab-project')).toHaveAttribute('aria-selected', 'true');
  const inbox = panel.getByTestId('project-inbox-item');
  await expect(inbox).toHaveCount(4);
  await expect(inbox.nth(0)).toHaveAttribute('data-kind', 'command');
  await expect(inbox.nth(0)).toContainText('$ npm test → exit 0');
  await expect(inbox.nth(1)).toHaveAttribute('data-kind', 'path');
  await expect(inbox.nth(1)).toContainText('read_file src/app.ts');
  await expect(inbox.nth(1)).toContainText('Checkout work');
  await expect(inbox.nth(2)).toContainText('always run npm test');
  await expect(inbox.nth(3)).toContainText('We use tabs');

  await shotEveryLook(page, app, 'project-inbox', [1280, 640], (p) => p.getByTestId('project-inbox'));

  // By keyboard: the first row (the command) accepted with A; focus moves to the next row.
  const rows = panel.getByTestId('project-inbox-item');
  await rows.first().focus();
  await page.keyboard.press('a');
  await expect(rows).toHaveCount(3);
  await expect(rows.first()).toBeFocused();
  await expect(rows.first()).toHaveAttribute('data-kind', 'path');
  // The arrow moves down to the instruction: accepted with A.
  await page.keyboard.press('ArrowDown');
  await expect(rows.nth(1)).toBeFocused();
  await expect(rows.nth(1)).toContainText('always run npm test');
  await page.keyboard.press('a');
  await expect(rows).toHaveCount(2);
  // Focus is on the next row, "We use tabs…": rejected with R.
  await expect(rows.nth(1)).toBeFocused();
  await expect(rows.nth(1)).toContainText('We use tabs');
  await page.keyboard.press('r');
  await expect(rows).toHaveCount(1);
  // The last one left (the path), accepted with A.
  await expect(rows.first()).toBeFocused();
  await page.keyboard.press('a');
  await expect(panel.getByTestId('project-inbox')).toHaveCount(0);
  await expect(page.getByTestId('memory-inbox-badge')).toHaveCount(0);

  const kept = panel.getByTestId('project-fact');
  await expect(kept).toHaveCount(3);
  await expect(panel.getByTestId('project-group-command')).toContainText('npm test');
  await expect(panel.getByTestId('project-group-path')).toContainText('src/app.ts');
  await expect(panel.getByTestId('project-group-instruction')).toContainText('always run npm test');
  await expect(panel).not.toContainText('We use tabs');
  await shotEveryLook(page, app, 'project-kept', [1280, 640], (p) => p.getByTestId('project-group-command'));
  // An accepted fact edited in place (the same form as the session's facts): Enter saves.
  await panel.getByTestId('project-group-instruction').getByTestId('project-edit').click();
  const editor = panel.getByTestId('project-fact-edit-input');
  await expect(editor).toBeFocused();
  await editor.fill('Always run npm test before you say done.');
  await app.shot('project-edit-1280', 'en', 'light');
  await page.keyboard.press('Enter');
  await expect(editor).toHaveCount(0);
  await expect(panel.getByTestId('project-group-instruction')).toContainText(
    'Always run npm test before you say done.',
  );
  // Settings → Context: project memory's switches, in both languages and themes.
  for (const [lang, theme] of [
    ['zh-CN', 'dark'],
    ['en', 'light'],
  ] as [Lang, Theme][]) {
    await app.setLook(lang, theme);
    await app.openSettings('context');
    await page.getByTestId('project-memory-auto-accept').scrollIntoViewIfNeeded();
    await expect(page.getByTestId('project-ttl-input')).toHaveValue('30');
    await app.shot('project-settings', lang, theme);
    await app.closeSettings();
  }

  // The next session in the same folder knows it from its first request; the meter shows the share.
  await sessionIn(stack, 'Next day', folder);
  await page.reload();
  await app.waitReady();
  await openSession(page, app, 'Next day');
  await app.send('what do you know about this project?');
  await app.waitIdle();
  await expect(page.getByTestId('msg-assistant').last()).toContainText(
    'The project memory says: tests run with npm test.',
  );
  await app.send('which files do you know?');
  await app.waitIdle();
  await expect(page.getByTestId('msg-assistant').last()).toContainText('I know src/app.ts.');
  await page.getByTestId('context-meter').click();
  await expect(page.getByTestId('meter-part-projectMemory')).toBeVisible();
  await app.shot('project-meter', 'en', 'light');
  await page.keyboard.press('Escape');

  // Another folder's session does not.
  const other = join(dirname(stack.dataDir), 'elsewhere');
  mkdirSync(other, { recursive: true });
  await sessionIn(stack, 'Elsewhere', other);
  await page.reload();
  await app.waitReady();
  await openSession(page, app, 'Elsewhere');
  await app.send('what do you know about this project?');
  await app.waitIdle();
  await expect(page.getByTestId('msg-assistant').last()).toContainText('Nothing about this project yet.');

  // The file the project verified is deleted: the next turn's check marks it stale, leaves it out of
  // that turn's prompt, and offers it in the inbox (keep or forget); forgotten by keyboard.
  rmSync(join(folder, 'src', 'app.ts'));
  await openSession(page, app, 'Next day');
  await app.send('which files do you know?');
  await app.waitIdle();
  await expect(page.getByTestId('msg-assistant').last()).toContainText('No file known.');
  await expect(page.getByTestId('memory-inbox-badge')).toHaveText('1');
  await projectTab(page);
  const stale = panel.getByTestId('project-inbox-item');
  await expect(stale).toHaveCount(1);
  await expect(stale.first()).toHaveAttribute('data-stale', 'missing');
  await shotEveryLook(page, app, 'project-stale', [640], (p) => p.getByTestId('project-fact-stale'));
  await stale.first().focus();
  await page.keyboard.press('r');
  await expect(panel.getByTestId('project-inbox')).toHaveCount(0);
  await expect(page.getByTestId('memory-inbox-badge')).toHaveCount(0);
  await expect(panel.getByTestId('project-group-path')).toHaveCount(0);
});
