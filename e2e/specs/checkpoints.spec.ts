import { mkdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionSummary } from '@threadline/protocol';
import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 23 point 3: a turn edits a file, creates one and removes a third with the shell; the chat
// shows "3 files changed" with the diff, Undo changes puts the folder back, Redo the turn's changes.

test.use({
  fakeRules: {
    rules: [
      { match: { lastToolResultIncludes: 'removed-gone' }, reply: { content: 'Tidied up.' } },
      { match: { lastToolResultIncludes: 'plan.md' }, reply: { content: 'Plan written.' } },
      {
        match: { lastUserIncludes: 'draft the plan', hasTools: true },
        reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'plan.md', content: 'draft\n' } }] },
      },
      {
        match: { lastUserIncludes: 'finish the plan', hasTools: true },
        reply: { toolCalls: [{ name: 'write_file', arguments: { path: 'plan.md', content: 'final\n' } }] },
      },
      {
        match: { lastUserIncludes: 'tidy the project', hasTools: true },
        reply: {
          toolCalls: [
            { name: 'write_file', arguments: { path: 'notes.md', content: '# Notes\n\nline 2 changed\nline 3\n' } },
            { name: 'write_file', arguments: { path: 'src/new.ts', content: 'export const answer = 42;\n' } },
            { name: 'shell', arguments: { command: 'rm old.txt && echo removed-gone' } },
          ],
        },
      },
    ],
  },
});

const NOTES = '# Notes\n\nline two\nline 3\n';

test('N files changed, the diff, Undo changes and Redo', async ({ page, stack }) => {
  const work = join(stack.dataDir, '..', 'work', 'project');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'notes.md'), NOTES);
  writeFileSync(join(work, 'old.txt'), 'old\n');
  await stack.rpc('settings.set', { patch: { approvalPolicy: 'auto' } });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  const [session] = await stack.rpc<SessionSummary[]>('sessions.list');
  await stack.rpc('sessions.update', { id: session!.id, workingFolder: work });

  await app.send('Please tidy the project');
  await app.waitIdle();
  const row = page.getByTestId('checkpoint');
  await expect(row.getByTestId('checkpoint-title')).toHaveText('3 files changed');
  await row.getByTestId('checkpoint-diff-toggle').click();
  await expect(row.getByTestId('checkpoint-file')).toHaveCount(3);
  await expect(row.getByTestId('checkpoint-diff')).toContainText('+line 2 changed');
  await expect(row.getByTestId('checkpoint-diff')).toContainText('-line two');
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await row.scrollIntoViewIfNeeded();
    await app.shot('checkpoint-diff', lang, theme);
  }
  await page.setViewportSize({ width: 640, height: 800 });
  await app.shot('checkpoint-diff-640', 'zh-CN', 'light');
  await app.setLook('en', 'dark');
  await app.shot('checkpoint-diff-640', 'en', 'dark');
  await page.setViewportSize({ width: 1280, height: 800 });
  await app.setLook('en', 'light');

  await row.getByTestId('checkpoint-undo').click();
  await expect(row).toHaveAttribute('data-state', 'undone');
  expect(readFileSync(join(work, 'notes.md'), 'utf8')).toBe(NOTES);
  expect(readFileSync(join(work, 'old.txt'), 'utf8')).toBe('old\n');
  expect(existsSync(join(work, 'src', 'new.ts'))).toBe(false);
  await expect(page.locator('[data-notice="checkpoint-undo"]')).toContainText('You undid 3 file changes');
  for (const [lang, theme] of LOOKS.slice(0, 2)) {
    await app.setLook(lang, theme);
    await app.scrollToBottom();
    await app.shot('checkpoint-undone', lang, theme);
  }
  await app.setLook('en', 'light');

  await row.getByTestId('checkpoint-redo').click();
  await expect(row).toHaveAttribute('data-state', 'applied');
  expect(readFileSync(join(work, 'notes.md'), 'utf8')).toBe('# Notes\n\nline 2 changed\nline 3\n');
  expect(existsSync(join(work, 'old.txt'))).toBe(false);
  expect(readFileSync(join(work, 'src', 'new.ts'), 'utf8')).toBe('export const answer = 42;\n');
  await expect(page.locator('[data-notice="checkpoint-redo"]')).toBeVisible();

  // The user edits a file of the turn by hand: undo asks before overwriting it.
  writeFileSync(join(work, 'notes.md'), 'edited by hand\n');
  await row.getByTestId('checkpoint-undo').click();
  const confirm = page.getByTestId('checkpoint-confirm');
  await expect(confirm).toContainText('notes.md');
  expect(readFileSync(join(work, 'notes.md'), 'utf8')).toBe('edited by hand\n');
  await page.keyboard.press('Escape');
  await expect(confirm).toHaveCount(0);
  for (const [lang, theme] of LOOKS.slice(0, 2)) {
    await app.setLook(lang, theme);
    await row.getByTestId('checkpoint-undo').click();
    await expect(confirm).toBeVisible();
    await app.shot('checkpoint-confirm', lang, theme);
    await page.keyboard.press('Escape');
    await expect(confirm).toHaveCount(0);
  }
  await app.setLook('en', 'light');
  await row.getByTestId('checkpoint-undo').click();
  await page.getByTestId('checkpoint-force').click();
  await expect(row).toHaveAttribute('data-state', 'undone');
  expect(readFileSync(join(work, 'notes.md'), 'utf8')).toBe(NOTES);
});

// Issue 37 item 9: after a forced undo of an older turn, the newer turn whose edit of the same file
// it took out says its changes are no longer in the files, and Redo puts them back.
test('a turn whose changes an undo of an older turn took out says so, and Redo puts them back', async ({
  page,
  stack,
}) => {
  const work = join(stack.dataDir, '..', 'work', 'plans');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'plan.md'), 'empty\n');
  await stack.rpc('settings.set', { patch: { approvalPolicy: 'auto' } });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  const [session] = await stack.rpc<SessionSummary[]>('sessions.list');
  await stack.rpc('sessions.update', { id: session!.id, workingFolder: work });
  await app.send('Please draft the plan');
  await app.waitIdle();
  await app.send('Now finish the plan');
  await app.waitIdle();
  const rows = page.getByTestId('checkpoint');
  await expect(rows).toHaveCount(2);
  await rows.nth(0).getByTestId('checkpoint-undo').click();
  await page.getByTestId('checkpoint-force').click();
  await expect(rows.nth(0)).toHaveAttribute('data-state', 'undone');
  expect(readFileSync(join(work, 'plan.md'), 'utf8')).toBe('empty\n');
  await expect(rows.nth(1)).toHaveAttribute('data-state', 'overwritten');
  await expect(rows.nth(1).getByTestId('checkpoint-overwritten')).toHaveText('No longer in the files');
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await app.scrollToBottom();
    await app.shot('checkpoint-overwritten', lang, theme);
  }
  await app.setLook('zh-CN', 'dark');
  await page.setViewportSize({ width: 640, height: 800 });
  await app.scrollToBottom();
  await app.shot('checkpoint-overwritten-640', 'zh-CN', 'dark');
  await page.setViewportSize({ width: 1280, height: 800 });
  await app.setLook('en', 'light');
  // Redo of the newer turn: the file was "draft" when it started, now "empty": it asks first.
  await rows.nth(1).getByTestId('checkpoint-redo').click();
  await page.getByTestId('checkpoint-force').click();
  await expect(rows.nth(1)).toHaveAttribute('data-state', 'applied');
  expect(readFileSync(join(work, 'plan.md'), 'utf8')).toBe('final\n');
});
