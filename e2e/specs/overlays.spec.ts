import type { Locator, Page } from '@playwright/test';
import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 37 §5: overlays never cover text or inputs, popovers stay in the window, the narrow
// sidebar has a scrim.

test.use({ actionTimeout: 20_000 });

async function rect(l: Locator) {
  const b = await l.boundingBox();
  if (!b) throw new Error('no box');
  return { left: b.x, top: b.y, right: b.x + b.width, bottom: b.y + b.height };
}

/** What is drawn at the centre of a locator's box. */
const hitAt = (page: Page, x: number, y: number) =>
  page.evaluate(
    ([px, py]) => {
      const el = document.elementFromPoint(px!, py!);
      return el ? `${el.className}` : '';
    },
    [x, y],
  );

test('the 640 px sidebar lays over the chat with a scrim; a press beside it closes it', async ({ page, stack }) => {
  await page.setViewportSize({ width: 640, height: 800 });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await page.getByTestId('sidebar-toggle').click();
  await expect(page.locator('.sidebar')).toBeVisible();
  const scrim = page.getByTestId('sidebar-scrim');
  await expect(scrim).toBeVisible();
  const sidebar = await rect(page.locator('.sidebar'));
  // Right of the sidebar, over the chat, is the scrim (the chat is behind it).
  expect(await hitAt(page, (sidebar.right + 640) / 2, 400)).toContain('sidebar-scrim');
  await app.shot('overlays-sidebar-640', 'en', 'light');
  await page.mouse.click((sidebar.right + 640) / 2, 400);
  await expect(page.locator('.sidebar')).toBeHidden();
});

test('the jump button, the context popover and the sidebar buttons cover no text or field', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  for (let i = 1; i <= 6; i++) {
    await app.send(`note number ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(10)}`);
    await app.waitIdle();
  }
  // Scrolled up: the jump button sits between the list and the composer, over neither.
  await app.messageList.evaluate((el) => (el.scrollTop = 0));
  const jump = page.locator('.jump-btn');
  await expect(jump).toBeVisible();
  const j = await rect(jump);
  expect(j.top).toBeGreaterThanOrEqual((await rect(app.messageList)).bottom - 0.5);
  expect(j.bottom).toBeLessThanOrEqual((await rect(page.locator('.composer'))).top + 0.5);
  await app.shot('overlays-jump', 'en', 'light');
  await jump.click();
  await expect(jump).toHaveCount(0);

  // A short window: the context popover opens upwards and stays inside it, scrolling.
  await page.setViewportSize({ width: 900, height: 420 });
  await app.meter.click();
  const popover = page.getByTestId('context-popover');
  await expect(popover).toBeVisible();
  const p = await rect(popover);
  expect(p.top).toBeGreaterThanOrEqual(0);
  expect(p.bottom).toBeLessThanOrEqual(420);
  expect(await hitAt(page, (p.left + p.right) / 2, p.top + 12)).not.toBe('');
  await page.getByTestId('context-popover').locator('.popover-title').scrollIntoViewIfNeeded();
  await expect(popover.locator('.popover-title')).toBeInViewport();
  await app.shot('overlays-context-popover', 'en', 'light');
  await page.keyboard.press('Escape');

  // A long session title beside its rename and delete buttons: the title ends before them.
  await page.setViewportSize({ width: 1280, height: 800 });
  const [s] = await stack.rpc<{ id: string }[]>('sessions.list');
  await stack.rpc('sessions.rename', {
    id: s!.id,
    title: 'A very long session title that goes on and on well past the sidebar',
  });
  const item = app.sessions.first();
  await item.hover();
  const title = await rect(item.locator('.session-title-text'));
  const actions = await rect(item.locator('.session-actions'));
  expect(title.right).toBeLessThanOrEqual(actions.left);
  await app.shot('overlays-sidebar-title', 'en', 'light');
});
