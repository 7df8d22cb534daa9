import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderProfile, SessionSummary } from '@threadline/protocol';
import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 12: the session's working folder in the header, the approval card naming the resolved
// path outside it, and the provider form saying a key stays with its host; both languages, both themes.

test.use({
  fakeRules: {
    rules: [
      {
        match: { lastUserIncludes: 'read the notes next door', hasTools: true },
        reply: { toolCalls: [{ name: 'read_file', arguments: { path: '../../outside/notes.txt' } }] },
      },
      { match: { lastToolResultIncludes: 'next-door notes' }, reply: { content: 'Read them.' } },
    ],
  },
});

test('working folder, an outside path on the approval card, the key-host warning', async ({ page, stack }) => {
  const root = join(stack.dataDir, '..');
  const work = join(root, 'work', 'threadline-demo');
  mkdirSync(join(root, 'outside'), { recursive: true });
  writeFileSync(join(root, 'outside', 'notes.txt'), 'next-door notes');
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  // The default folder is <home>/Threadline (the fixture's own home), shown in the header.
  const [session] = await stack.rpc<SessionSummary[]>('sessions.list');
  await expect(page.getByTestId('folder-button')).toContainText(join(root, 'home', 'Threadline'));
  // Moved through the header's field.
  await page.getByTestId('folder-button').click();
  await page.getByTestId('folder-input').fill('~');
  await page.getByTestId('folder-save').click();
  await expect(page.getByTestId('folder-error')).toContainText('whole home folder');
  await page.getByTestId('folder-input').fill(work);
  await page.getByTestId('folder-save').click();
  // A folder that does not exist is said, not created behind the user's back; one click creates it.
  await expect(page.getByTestId('folder-error')).toContainText('This folder does not exist.');
  await page.getByTestId('folder-create').click();
  await expect(page.getByTestId('folder-button')).toContainText(work);
  expect((await stack.rpc<SessionSummary[]>('sessions.list')).find((s) => s.id === session!.id)?.workingFolder).toBe(
    work,
  );

  await app.send('Please read the notes next door');
  const card = app.toolCards.last();
  await expect(card).toHaveAttribute('data-status', 'waiting');
  await expect(card.getByTestId('tool-access')).toContainText(join(root, 'outside', 'notes.txt'));
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await expect(card.getByTestId('tool-access')).toBeVisible();
    await app.shot('reach-approval', lang, theme);
  }
  await page.setViewportSize({ width: 720, height: 760 });
  await app.shot('reach-approval-narrow', 'zh-CN', 'light');
  await page.setViewportSize({ width: 1280, height: 800 });
  await app.setLook('en', 'light');
  await card.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(card).toHaveAttribute('data-status', 'ok');
  await app.waitIdle();

  // A profile with a stored key; its address edited to another host.
  const [profile] = await stack.rpc<ProviderProfile[]>('providers.list');
  await stack.rpc('providers.upsert', { ...profile, apiKey: 'sk-e2e-stored' });
  await page.reload(); // the page learns of the stored key
  await app.waitReady();
  for (const [lang, theme] of LOOKS) {
    await app.setLook(lang, theme);
    await app.openSettings('providers');
    await page.getByTestId('provider-item').first().getByTestId('edit-profile').click();
    await page.getByTestId('provider-url').fill('https://elsewhere.example/v1');
    await expect(page.getByTestId('provider-key-moved')).toBeVisible();
    await page.getByTestId('provider-key-moved').scrollIntoViewIfNeeded();
    await app.shot('reach-provider-warning', lang, theme);
    await app.closeSettings();
  }

  // Settings: the default folder (checked before it is sent) and the pass-through list.
  for (const [lang, theme] of LOOKS.slice(0, 2)) {
    await app.setLook(lang, theme);
    await app.openSettings('general');
    await page.getByTestId('default-folder').fill('projects');
    await page.getByTestId('default-folder').press('Enter');
    await expect(page.getByTestId('default-folder-error')).toBeVisible();
    await app.shot('reach-settings', lang, theme);
    await page.getByTestId('default-folder').fill('~/projects');
    await page.getByTestId('default-folder').press('Enter');
    await expect(page.getByTestId('default-folder-error')).toHaveCount(0);
    await app.closeSettings();
  }
  expect(
    (await stack.rpc<{ agent: { defaultWorkingFolder: string } }>('settings.get')).agent.defaultWorkingFolder,
  ).toBe('~/projects');
});
