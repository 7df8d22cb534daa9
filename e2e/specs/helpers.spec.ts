import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HelperSummary, SessionSummary } from '@threadline/protocol';
import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 39: the model delegates three tasks; each helper is a row in the chat (task, role, live
// status, tools it ran, tokens), one of them waits for approval in its row, the rows open and
// close, a helper's own conversation opens over the chat, and a search finds a helper's words.

const TASKS = [
  { task: 'Read alpha.txt and say what it holds.' },
  { task: 'Read beta.txt and say what it holds.' },
  { task: 'Count the lines of notes.md with wc.', role: 'work' },
];

test.use({
  fakeRules: {
    rules: [
      // The parent, once its helpers are done (their reports quote the files: this rule comes first).
      { match: { lastToolResultIncludes: 'helpers finished' }, reply: { content: 'The helpers looked around.' } },
      {
        match: { lastUserIncludes: 'explore the project', hasTools: true },
        reply: { toolCalls: [{ name: 'delegate', arguments: { tasks: TASKS } }] },
      },
      // The helpers: each reads its file (or counts lines), then reports.
      {
        match: { lastUserIncludes: 'Read alpha.txt' },
        reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'alpha.txt' } }] },
      },
      {
        match: { lastUserIncludes: 'Read beta.txt' },
        reply: { toolCalls: [{ name: 'read_file', arguments: { path: 'beta.txt' } }] },
      },
      {
        match: { lastUserIncludes: 'Count the lines' },
        reply: { toolCalls: [{ name: 'shell', arguments: { command: 'wc -l notes.md' } }] },
      },
      { match: { lastToolResultIncludes: 'apples' }, reply: { content: 'alpha.txt holds **apples**, ripe ones.' } },
      { match: { lastToolResultIncludes: 'bananas' }, reply: { content: 'beta.txt holds bananas.' } },
      { match: { lastToolResultIncludes: 'notes.md' }, reply: { content: 'notes.md has 3 lines.' } },
    ],
  },
});

test('helper rows: live, waiting for approval, opened and closed, their conversation', async ({ page, stack }) => {
  // Three helpers' turns and 25 screenshots: minutes on a busy machine.
  test.setTimeout(300_000);
  const work = join(stack.dataDir, '..', 'work', 'project');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'alpha.txt'), 'apples grow here\n');
  writeFileSync(join(work, 'beta.txt'), 'bananas ripen there\n');
  writeFileSync(join(work, 'notes.md'), 'one\ntwo\nthree\n');
  // Commands ask (so the work helper's card waits in its row); three helpers at once.
  await stack.rpc('settings.set', { patch: { approvalPolicy: 'ask', helpers: { concurrency: 3 } } });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  const [session] = await stack.rpc<SessionSummary[]>('sessions.list');
  await stack.rpc('sessions.update', { id: session!.id, workingFolder: work });

  await app.send('Please explore the project');
  const card = page.getByTestId('delegate-card');
  const rows = card.getByTestId('helper-row');
  await expect(rows).toHaveCount(3);
  // The explorers finish; the worker's command waits for the user, in its own row.
  await expect(rows.nth(0)).toHaveAttribute('data-status', 'done');
  await expect(rows.nth(1)).toHaveAttribute('data-status', 'done');
  const waiting = rows.nth(2);
  await expect(waiting).toHaveAttribute('data-status', 'waiting');
  await expect(waiting.getByTestId('helper-waiting')).toContainText('Helper 3 asks');
  await expect(waiting.getByTestId('helper-waiting').getByTestId('tool-card')).toHaveAttribute(
    'data-status',
    'waiting',
  );
  await expect(rows.nth(0).getByTestId('helper-tool-count')).toHaveText('1 tool call');
  await expect(rows.nth(0).getByTestId('helper-role')).toHaveText('explore');
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await card.scrollIntoViewIfNeeded();
    await app.shot('helpers-waiting', lang, theme);
  }
  await app.setLook('en', 'light');

  // Approved in the parent's chat: the helper goes on and reports; the turn ends.
  await waiting.getByTestId('approve').click();
  await app.waitIdle();
  await expect(rows.nth(2)).toHaveAttribute('data-status', 'done');
  await expect(card).toHaveAttribute('data-status', 'ok');
  await expect(card.getByTestId('helper-totals')).toContainText('3 helpers:');
  const list = await stack.rpc<HelperSummary[]>('helpers.list', { sessionId: session!.id });
  expect(list.map((h) => h.status)).toEqual(['done', 'done', 'done']);
  expect(list[2]!.toolCalls).toEqual([{ name: 'shell', count: 1 }]);

  // Closed, then opened: the task, what it ran, what it used, its report.
  await expect(card.getByTestId('helper-body')).toHaveCount(0);
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await card.scrollIntoViewIfNeeded();
    await app.shot('helpers-closed', lang, theme);
  }
  await app.setLook('en', 'light');
  await rows.nth(0).getByTestId('helper-head').click();
  const body = rows.nth(0).getByTestId('helper-body');
  await expect(body.getByTestId('helper-report')).toContainText('alpha.txt holds apples, ripe ones.');
  await expect(body.getByTestId('helper-ran')).toContainText('read_file × 1');
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await body.scrollIntoViewIfNeeded();
    await app.shot('helpers-open', lang, theme);
  }
  await app.setLook('en', 'light');

  // Its own conversation: its task, its tool call and result, its answer.
  await body.getByTestId('helper-open').click();
  const dialog = page.getByTestId('helper-dialog');
  await expect(dialog).toContainText('Read alpha.txt and say what it holds.');
  await expect(dialog.getByTestId('tool-card')).toHaveCount(1);
  await expect(dialog).toContainText('ripe ones');
  await app.shot('helpers-dialog', 'en', 'light');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  // Closed again.
  await rows.nth(0).getByTestId('helper-head').click();
  await expect(rows.nth(0).getByTestId('helper-body')).toHaveCount(0);

  // 640 px: rows still show task and status, and open.
  await page.setViewportSize({ width: 640, height: 800 });
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await card.scrollIntoViewIfNeeded();
    await app.shot('helpers-closed-640', lang, theme);
    await rows.nth(2).getByTestId('helper-head').click();
    await rows.nth(2).getByTestId('helper-body').scrollIntoViewIfNeeded();
    await app.shot('helpers-open-640', lang, theme);
    await rows.nth(2).getByTestId('helper-head').click();
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await app.setLook('en', 'light');

  // A reload shows the helpers as they ended.
  await page.reload();
  await app.waitReady();
  await expect(page.getByTestId('delegate-card').getByTestId('helper-row')).toHaveCount(3);
  await expect(page.getByTestId('delegate-card').getByTestId('helper-row').nth(1)).toHaveAttribute(
    'data-status',
    'done',
  );

  // The meter's cost view counts them apart.
  await page.getByTestId('context-meter').click();
  await expect(page.getByTestId('cost-helpers')).toContainText('3 helpers:');
  await page.keyboard.press('Escape');

  // A helper's words are found by search, and open its conversation at them.
  await page.getByTestId('session-search').fill('ripe ones');
  await page.getByTestId('search-hit').first().click();
  await expect(page.getByTestId('helper-dialog')).toContainText('ripe ones');
  await app.shot('helpers-search', 'en', 'light');
});

test('Settings → Helpers: how many at once, and a role of the user’s', async ({ page, stack }) => {
  test.setTimeout(180_000);
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.openSettings('helpers');
  const section = page.getByTestId('helper-settings');
  await section.getByTestId('helper-concurrency').locator('[data-value="2"]').click();
  await expect(section.getByTestId('helper-concurrency').locator('[data-value="2"]')).toHaveAttribute(
    'aria-checked',
    'true',
  );
  await section.getByTestId('helper-role-add').click();
  const form = section.getByTestId('helper-role-form');
  // A built-in name is refused, in a sentence.
  await form.getByTestId('helper-role-name').fill('explore');
  await form.getByTestId('helper-role-description').fill('Reviews code.');
  await form.getByTestId('helper-role-tools').fill('read_file, grep');
  await form.getByTestId('helper-role-save').click();
  await expect(form.getByTestId('helper-role-error-name')).toContainText('other than explore and work');
  await form.getByTestId('helper-role-name').fill('reviewer');
  await form.getByTestId('helper-role-model').fill('small-model');
  await form.getByTestId('helper-role-save').click();
  await expect(section.getByTestId('helper-role')).toContainText('reviewer');
  const saved = await stack.rpc<{ helpers: unknown }>('settings.get');
  expect(saved.helpers).toEqual({
    concurrency: 2,
    roles: [{ name: 'reviewer', description: 'Reviews code.', tools: ['read_file', 'grep'], model: 'small-model' }],
  });
  await app.closeSettings();
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await app.openSettings('helpers');
    await app.shot('helpers-settings', lang, theme);
    await app.closeSettings();
  }
  await page.setViewportSize({ width: 640, height: 800 });
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await app.openSettings('helpers');
    await app.shot('helpers-settings-640', lang, theme);
    await app.closeSettings();
  }
});
