import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 37 §1: with a 120-character title the chat header fits at 640, 1280, 1440 and 1920 px,
// with and without the Memory panel, in both languages and themes: every control is on screen,
// whole and clickable; the title gives way first; Memory and the approval chips are never
// hidden (nor the chip of the permission rules in force); nothing scrolls the app sideways, not
// even focusing Memory from the keyboard.

const TITLE =
  'Migrate the billing service from the legacy cron jobs to the event queue, keep invoices idempotent, and document it';
expect(TITLE.length).toBeGreaterThanOrEqual(115);
const TITLE_120 = `${TITLE} (v2)`.padEnd(120, '.');

test.use({ actionTimeout: 20_000 });
test.describe.configure({ timeout: 600_000 });

/** Every element of the page that is scrolled sideways, or wider than its box and able to scroll. */
function sideways(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) out.push(`html ${root.scrollWidth}>${root.clientWidth}`);
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('body, body *'))) {
      if (el.scrollLeft !== 0) out.push(`${el.className || el.tagName} scrolled ${el.scrollLeft}px`);
    }
    for (const sel of ['.app', '.chat', '.chat-header']) {
      const el = document.querySelector<HTMLElement>(sel);
      if (el && el.scrollWidth > el.clientWidth + 1) out.push(`${sel} ${el.scrollWidth}>${el.clientWidth}`);
    }
    return out;
  });
}

/**
 * The header's controls that are a problem: outside the header or the window, narrower than a
 * click target, or covered by something else at their centre.
 */
function headerProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const header = document.querySelector<HTMLElement>('.chat-header')!;
    const hb = header.getBoundingClientRect();
    const out: string[] = [];
    const name = (el: Element) => el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.className;
    for (const el of Array.from(header.querySelectorAll<HTMLElement>('button'))) {
      if (el.closest('.menu, .popover')) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not rendered (display: none)
      if (r.left < hb.left - 0.5 || r.right > hb.right + 0.5 || r.right > window.innerWidth)
        out.push(`${name(el)} outside the header (${Math.round(r.left)}–${Math.round(r.right)} of ${hb.right})`);
      if (r.width < 20) out.push(`${name(el)} is ${r.width}px wide`);
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !el.contains(hit)) out.push(`${name(el)} is covered by ${hit ? name(hit) : 'nothing'}`);
    }
    // A label the header shows is shown whole, except the title and the folder's path and the
    // model's name, which are cut on purpose (and keep a part).
    for (const el of Array.from(
      header.querySelectorAll<HTMLElement>('.approval-text, .instructions-name, .btn-label'),
    )) {
      if (el.getClientRects().length === 0) continue;
      if (el.scrollWidth > el.clientWidth + 1) out.push(`"${el.textContent}" cut to ${el.clientWidth}px`);
    }
    for (const el of Array.from(
      header.querySelectorAll<HTMLElement>('.chat-title, .folder-path, .model-switch-name'),
    )) {
      if (el.getClientRects().length === 0) continue;
      if (el.clientWidth < 40) out.push(`${el.className} shows ${el.clientWidth}px of "${el.textContent}"`);
    }
    return out;
  });
}

test('the chat header fits at 640, 1280, 1440 and 1920 px with a 120-character title', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  const [session] = await stack.rpc<{ id: string; workingFolder: string }[]>('sessions.list');
  await stack.rpc('sessions.rename', { id: session!.id, title: TITLE_120 });
  // A project instruction file (its chip), two rules of the session's own (their chip).
  mkdirSync(session!.workingFolder, { recursive: true });
  writeFileSync(join(session!.workingFolder, 'AGENTS.md'), '# Notes for agents\nRun the tests.\n');
  const scope = { kind: 'session', sessionId: session!.id };
  await stack.rpc('rules.save', {
    decision: 'allow',
    match: { kind: 'command', tool: 'shell', words: ['npm', 'test'], more: true, sandbox: 'only' },
    scope,
  });
  await stack.rpc('rules.save', {
    decision: 'deny',
    match: { kind: 'path', tool: 'write_file', scope: { kind: 'outside' } },
    scope,
  });
  await page.reload();
  await app.waitReady();
  await expect(page.getByTestId('chat-title')).toHaveText(TITLE_120);

  const always = [
    'sidebar-toggle',
    'folder-button',
    'instructions-chip',
    'session-prompt-button',
    'session-rules',
    'network-switch',
    'model-switch',
    'open-memory',
    'header-more',
  ];
  const found: string[] = [];
  for (const width of [640, 1280, 1440, 1920]) {
    await page.setViewportSize({ width, height: 800 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      for (const panel of [false, true]) {
        if (panel) {
          await page.getByTestId('open-memory').click();
          await expect(page.getByTestId('memory-panel')).toBeVisible();
        }
        const where = `${width} ${lang} ${theme}${panel ? ' memory' : ''}`;
        // With the panel laid over a narrow chat the header is behind its scrim: checked without it.
        const covered = panel && (await page.getByTestId('panel-scrim').isVisible());
        if (!covered) {
          for (const id of always) await expect(page.getByTestId(id), `${where}: ${id}`).toBeVisible();
          await expect(page.getByTestId('session-rules'), where).toHaveAttribute('title', /2/);
          const problems = await headerProblems(page);
          for (const p of problems) found.push(`${where}: ${p}`);
          // Playwright's own check that each can be clicked (visible, stable, not covered).
          if (problems.length === 0) {
            for (const id of always) await page.getByTestId(id).click({ trial: true });
          } else console.log(problems.map((p) => `${where}: ${p}`).join('\n'));
        }
        for (const p of await sideways(page)) found.push(`${where}: ${p}`);
        await app.shot(`header-${width}${panel ? '-memory' : ''}`, lang, theme);
        if (panel) {
          await page.keyboard.press('Escape');
          await expect(page.getByTestId('memory-panel')).toHaveCount(0);
        }
      }
      // More: its menu opens inside the window, and Export is in it.
      await page.getByTestId('header-more').click();
      const menu = page.getByTestId('header-menu');
      await expect(menu).toBeVisible();
      const mb = (await menu.boundingBox())!;
      expect(mb.x, `${width} menu`).toBeGreaterThanOrEqual(0);
      expect(mb.x + mb.width, `${width} menu`).toBeLessThanOrEqual(width);
      await expect(page.getByTestId('export-markdown')).toBeVisible();
      // Not clipped by the header: what is drawn at the entry's centre is the entry.
      await page.getByTestId('export-markdown').click({ trial: true });
      await app.shot(`header-${width}-more`, lang, theme);
      await page.keyboard.press('Escape');
      await expect(menu).toHaveCount(0);
    }
    // Memory reached with the keyboard (Shift+Tab back from More) scrolls nothing sideways.
    await page.getByTestId('header-more').focus();
    await page.keyboard.press('Shift+Tab');
    await expect(page.getByTestId('open-memory')).toBeFocused();
    for (const p of await sideways(page)) found.push(`${width} keyboard focus on Memory: ${p}`);
  }
  expect(found).toEqual([]);

  // The rules' chip opens its list inside the window, even at 640 px; a rule revoked there is gone.
  await page.setViewportSize({ width: 640, height: 800 });
  await app.setLook('en', 'light');
  await page.getByTestId('session-rules').click();
  const list = page.locator('.rules-popover');
  await expect(page.getByTestId('session-rule')).toHaveCount(2);
  const lb = (await list.boundingBox())!;
  expect(lb.x).toBeGreaterThanOrEqual(0);
  expect(lb.x + lb.width).toBeLessThanOrEqual(640);
  await app.shot('header-640-rules', 'en', 'light');
  await page.getByTestId('session-rule-revoke').first().click();
  await expect(page.getByTestId('session-rule')).toHaveCount(1);
  expect(await headerProblems(page)).toEqual([]);
});
