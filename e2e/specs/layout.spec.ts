import type { Page } from '@playwright/test';
import { test, expect } from '../fixtures';
import { AppPage, type Lang, type Theme } from '../pages/AppPage';

// Issue 16 §5: from 640 px up nothing scrolls sideways; below ~1000 px the Memory panel lays over
// the chat instead of squeezing it; the composer keeps its controls; header chips truncate.

const LONG_LINE = 'https://example.com/' + 'a-very-long-path-segment/'.repeat(14);
const WIDE = [
  'Here is the command, with a long unbroken address:',
  '',
  LONG_LINE,
  '',
  '```bash',
  `curl --silent --show-error --location --retry 3 --header "Accept: application/json" ${LONG_LINE}`,
  '```',
  '',
  '| column one | column two | column three | column four | column five | column six |',
  '|---|---|---|---|---|---|',
  '| a fairly long cell | another long cell | more text here | and here | still more | the end |',
].join('\n');

test.use({ fakeRules: { rules: [{ match: { lastUserIncludes: 'wide' }, reply: { content: WIDE } }] } });

/** Elements whose content is wider than their box (scrollWidth > clientWidth), by selector. */
async function sidewaysOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) out.push(`html ${root.scrollWidth}>${root.clientWidth}`);
    for (const sel of [
      '.app',
      '.chat',
      '.chat-header',
      '.message-scroll',
      '.composer',
      '.composer-bar',
      '.side-panel',
    ]) {
      for (const el of Array.from(document.querySelectorAll<HTMLElement>(sel)))
        if (el.scrollWidth > el.clientWidth) out.push(`${sel} ${el.scrollWidth}>${el.clientWidth}`);
    }
    return out;
  });
}

async function box(page: Page, testId: string) {
  const b = await page.getByTestId(testId).first().boundingBox();
  if (!b) throw new Error(`${testId} has no box`);
  return b;
}

test('640 and 820 px with the Memory panel open: no sideways scroll, overlay, composer whole', async ({
  page,
  stack,
}) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await app.send('show me something wide');
  await app.waitIdle();
  const sessionId = await page.getByTestId('session-item').first().getAttribute('data-session-id');
  // Rules in force: the header's chip must give way, not push the buttons out.
  const session = { kind: 'session', sessionId };
  await stack.rpc('rules.save', {
    decision: 'allow',
    match: { kind: 'command', tool: 'shell', words: ['npm', 'run', 'test'], more: true, sandbox: 'only' },
    scope: session,
  });
  await stack.rpc('rules.save', {
    decision: 'deny',
    match: { kind: 'path', tool: 'write_file', scope: { kind: 'outside' } },
    scope: session,
  });
  await page.reload();
  await app.waitReady();
  await expect(page.getByTestId('session-rules')).toBeVisible();

  const looks: [Lang, Theme][] = [
    ['en', 'light'],
    ['zh-CN', 'dark'],
  ];
  for (const width of [640, 820, 1360]) {
    await page.setViewportSize({ width, height: 800 });
    for (const [lang, theme] of width === 820
      ? [...looks, ['en', 'dark'] as const, ['zh-CN', 'light'] as const]
      : looks) {
      await app.setLook(lang, theme);
      await page.getByTestId('open-memory').click();
      await expect(page.getByTestId('memory-panel')).toBeVisible();
      expect(await sidewaysOverflow(page)).toEqual([]);

      const chat = (await page.locator('main.chat').boundingBox())!;
      const panel = (await page.getByTestId('memory-panel').boundingBox())!;
      if (width < 1000) {
        // Over the chat, which keeps its full width.
        expect(chat.x + chat.width).toBeGreaterThanOrEqual(width - 1);
        expect(panel.x).toBeLessThan(chat.x + chat.width);
      } else {
        expect(chat.x + chat.width).toBeLessThanOrEqual(panel.x + 1);
      }
      // The composer keeps its controls inside it.
      const composer = (await page.locator('.composer').boundingBox())!;
      for (const id of ['send-button', 'context-meter', 'compact-button']) {
        const b = await box(page, id);
        expect(b.x).toBeGreaterThanOrEqual(composer.x);
        expect(b.x + b.width).toBeLessThanOrEqual(composer.x + composer.width);
      }
      // Header buttons stay whole and inside the header.
      const header = (await page.locator('.chat-header').boundingBox())!;
      for (const id of ['open-memory', 'export-menu']) {
        const b = await box(page, id);
        expect(b.x + b.width).toBeLessThanOrEqual(header.x + header.width);
      }
      await app.shot(`layout-${width}-panel`, lang, theme);
      // Esc closes the panel.
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('memory-panel')).toHaveCount(0);
      expect(await sidewaysOverflow(page)).toEqual([]);
      await app.shot(`layout-${width}`, lang, theme);
    }
  }
});
