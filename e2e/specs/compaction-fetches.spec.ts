import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 27: one manual compaction fetches each route at most once. The compaction's events
// (started, finished, usage, session.updated) say what changed; the page reloads what they name
// once, not once per event and once more when compaction.run answers.

test('a manual compaction fetches each route at most once', async ({ page, stack }) => {
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

  let counting = false;
  const counts = new Map<string, number>();
  const inFlight = new Set<unknown>();
  let runDone = false;
  page.on('request', (r) => {
    const route = /\/api\/rpc\/([^?]+)/.exec(r.url())?.[1];
    if (!counting || !route) return;
    counts.set(route, (counts.get(route) ?? 0) + 1);
    inFlight.add(r);
  });
  const finished = (r: unknown) => {
    inFlight.delete(r);
    if (counting && /\/api\/rpc\/compaction\.run/.test((r as { url(): string }).url())) runDone = true;
  };
  page.on('requestfinished', finished);
  page.on('requestfailed', finished);

  counting = true;
  await app.compactButton.click();
  await expect(app.dividers.first()).toBeVisible();
  await app.waitIdle();
  // Settled: compaction.run answered, what it and its events asked for came back, nothing is in flight.
  await expect
    .poll(() => runDone && inFlight.size === 0 && (counts.get('messages.list') ?? 0) >= 1, { timeout: 30_000 })
    .toBe(true);
  counting = false;

  const seen = Object.fromEntries([...counts].sort(([a], [b]) => a.localeCompare(b)));
  console.log(`rpc routes during one manual compaction: ${JSON.stringify(seen)}`);
  expect(seen['compaction.run']).toBe(1);
  for (const [route, n] of Object.entries(seen)) expect(n, route).toBeLessThanOrEqual(1);
});
