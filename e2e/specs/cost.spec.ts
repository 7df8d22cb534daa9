import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 24: the meter's breakdown shows this session's tokens, cache hits and cost ("unknown"
// without a price), a compaction divider shows what its summary cost, Settings → Usage & cost the
// totals per day and model. Screenshots in both languages, light and dark, 640 and 1280 px.

test('session cost in the meter, a divider’s summary cost, totals in Settings', async ({ page, stack }) => {
  const app = new AppPage(page);
  await stack.rpc('settings.set', { patch: { compaction: { strategy: 'legacy_segmented' } } });
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  for (let i = 1; i <= 6; i++) {
    await app.send(`note number ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(8)}`);
    await app.waitIdle();
  }

  // No price for fake-model: tokens are shown, the cost is "unknown".
  await app.meter.click();
  const popover = page.getByTestId('context-popover');
  await expect(popover.getByTestId('session-cost')).toBeVisible();
  await expect(popover.getByTestId('cost-total')).toHaveAttribute('data-value', 'unknown');
  await expect(popover.getByTestId('cost-total')).toHaveText('unknown');
  // The figures are what fake-llm reported.
  const reqs = (await (await fetch(stack.fakeLlmUrl.replace(/\/v1$/, '/_fake/requests'))).json()) as {
    usage?: { prompt_tokens: number; cached_tokens: number; completion_tokens: number };
  }[];
  const sum = (k: 'prompt_tokens' | 'cached_tokens' | 'completion_tokens') =>
    reqs.reduce((n, r) => n + (r.usage?.[k] ?? 0), 0);
  await expect(popover.getByTestId('cost-tokens-in')).toHaveAttribute('data-value', String(sum('prompt_tokens')));
  await expect(popover.getByTestId('cost-cache-rate')).toHaveAttribute('data-value', String(sum('cached_tokens')));
  await expect(popover.getByTestId('cost-tokens-out')).toHaveAttribute('data-value', String(sum('completion_tokens')));
  expect(sum('cached_tokens')).toBeGreaterThan(0);
  await app.meter.click();

  // A price for the profile's model: the cost is known from now on, and so is the summary's.
  const [profile] = await stack.rpc<{ id: string }[]>('providers.list', {});
  await stack.rpc('usage.prices.set', {
    profileId: profile!.id,
    model: 'fake-model',
    price: { input: 2, cachedInput: 0.5, output: 8 },
  });
  await app.compactButton.click();
  await expect(app.dividers.first()).toBeVisible();
  await app.waitIdle();
  const cost = app.dividers.first().getByTestId('divider-cost');
  await expect(cost).toBeVisible();
  expect(Number(await cost.getAttribute('data-value'))).toBeGreaterThan(0);
  await expect(cost).toContainText('$');

  await app.meter.click();
  await expect(popover.getByTestId('cost-summaries')).toBeVisible();
  for (const width of [1280, 640]) {
    await page.setViewportSize({ width, height: 820 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await app.meter.click();
      await expect(popover.getByTestId('session-cost')).toBeVisible();
      // Calls are priced when shown: the profile's price now covers the earlier calls too.
      await expect(popover.getByTestId('cost-total')).toContainText('$');
      await app.shot(`cost-meter-${width}`, lang, theme);
      await app.meter.click();
      await app.dividers.first().scrollIntoViewIfNeeded();
      await app.shot(`cost-divider-${width}`, lang, theme);
    }
  }

  // Settings → Usage & cost: totals per day and model, the profile's prices, the cache settings.
  await page.setViewportSize({ width: 1280, height: 820 });
  for (const [lang, theme] of LOOKS.slice(0, 2)) {
    await app.setLook(lang, theme);
    await app.openSettings('usage');
    await expect(page.getByTestId('usage-daily')).toContainText('fake-model');
    await expect(page.getByTestId('price-fake-model')).toBeVisible();
    await app.shot('cost-settings', lang, theme);
    await app.closeSettings();
  }
});
