import type { Page } from '@playwright/test';
import { test, expect, type Stack } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 27: one manual compaction, and one undo of it, fetch each route at most once. The
// events they cause (started, finished, undone, notice, usage, session.updated) say what changed;
// the page reloads what they name once, not once per event and once more when the call answers.

/** A session long enough to compact, with the compact button ready. */
async function longSession(page: Page, stack: Stack): Promise<AppPage> {
  const app = new AppPage(page);
  await stack.rpc('settings.set', { patch: { compaction: { strategy: 'legacy_segmented' } } });
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  for (let i = 1; i <= 6; i++) {
    await app.send(`note number ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(8)}`);
    await app.waitIdle();
  }
  await expect(app.compactButton).toBeEnabled();
  return app;
}

/**
 * The rpc routes the page fetches from `act` until `route` answered, what followed came back and
 * nothing is in flight, with `settled` true; each route with its count.
 */
async function routesFetched(
  page: Page,
  route: string,
  act: () => Promise<void>,
  settled: (counts: Map<string, number>) => boolean,
): Promise<Record<string, number>> {
  let counting = false;
  const counts = new Map<string, number>();
  const inFlight = new Set<unknown>();
  let answered = false;
  const sent = (r: { url(): string }) => {
    const name = /\/api\/rpc\/([^?]+)/.exec(r.url())?.[1];
    if (!counting || !name) return;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    inFlight.add(r);
  };
  const finished = (r: { url(): string }) => {
    inFlight.delete(r);
    if (counting && r.url().includes(`/api/rpc/${route}`)) answered = true;
  };
  page.on('request', sent);
  page.on('requestfinished', finished);
  page.on('requestfailed', finished);
  counting = true;
  await act();
  await expect.poll(() => answered && inFlight.size === 0 && settled(counts), { timeout: 30_000 }).toBe(true);
  counting = false;
  page.off('request', sent);
  page.off('requestfinished', finished);
  page.off('requestfailed', finished);
  return Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
}

test('a manual compaction fetches each route at most once', async ({ page, stack }) => {
  const app = await longSession(page, stack);
  const seen = await routesFetched(
    page,
    'compaction.run',
    async () => {
      await app.compactButton.click();
      await expect(app.dividers.first()).toBeVisible();
      await app.waitIdle();
    },
    (counts) => (counts.get('messages.list') ?? 0) >= 1,
  );
  console.log(`rpc routes during one manual compaction: ${JSON.stringify(seen)}`);
  expect(seen['compaction.run']).toBe(1);
  for (const [route, n] of Object.entries(seen)) expect(n, route).toBeLessThanOrEqual(1);
});

test('undoing a compaction fetches each route at most once', async ({ page, stack }) => {
  const app = await longSession(page, stack);
  // The compaction first, settled: nothing it asked for is still coming.
  await routesFetched(
    page,
    'compaction.run',
    async () => {
      await app.compactButton.click();
      await expect(app.dividers.first()).toHaveAttribute('data-active', 'true');
      await app.waitIdle();
    },
    (counts) => (counts.get('messages.list') ?? 0) >= 1,
  );
  await expect(app.messageList.getByTestId('hidden-tag').first()).toBeVisible();

  const seen = await routesFetched(
    page,
    'compaction.undo',
    async () => {
      await app.dividers.first().getByRole('button', { name: 'Undo' }).click();
      await expect(app.dividers.first()).toHaveAttribute('data-active', 'false');
    },
    // The undone event reloads the session's context (the list of its compactions with it).
    (counts) => (counts.get('compaction.list') ?? 0) >= 1,
  );
  console.log(`rpc routes during one undo: ${JSON.stringify(seen)}`);
  expect(seen['compaction.undo']).toBe(1);
  for (const [route, n] of Object.entries(seen)) expect(n, route).toBeLessThanOrEqual(1);
  // What the undo changed is on the page: no message is hidden from the agent any more.
  await expect(app.messageList.getByTestId('hidden-tag')).toHaveCount(0);
});
