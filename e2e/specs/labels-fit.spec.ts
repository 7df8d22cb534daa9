import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect } from '../fixtures';
import { AppPage, type Lang, type Theme } from '../pages/AppPage';
import { repoRoot } from '../support/processes';

// Issue 26's walk-through: "clipped placeholder and role labels". At 640 and 1280 px, in English
// and Chinese, with and without the Memory panel and the sidebar, no label the app writes (every
// string of the locale without a placeholder) is cut by its box, broken inside a word or hidden,
// and the composer's placeholder is shown whole.

test.use({
  actionTimeout: 20_000,
  fakeRules: {
    rules: [
      {
        match: { lastUserIncludes: 'tidy the notes', hasTools: true },
        reply: { toolCalls: [{ name: 'write_file', arguments: { path: '../../outside/notes.txt', content: 'gone' } }] },
      },
      { match: { lastUserIncludes: 'say hello' }, reply: { content: 'Hello! What shall we work on?' } },
    ],
  },
});

/** Every plain string of a locale (no interpolation): the app's own labels. */
function labels(lang: Lang): string[] {
  const file = resolve(repoRoot, 'apps/desktop/src/renderer/src/i18n/locales', `${lang}.json`);
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      if (!v.includes('{{') && v.trim() !== '') out.push(v.trim());
    } else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(JSON.parse(readFileSync(file, 'utf8')));
  return out;
}

interface Problem {
  text: string;
  why: string;
}

/**
 * Labels on screen that are cut: wider or taller than a box that hides the rest (or an ellipsis),
 * a word broken across lines (space-separated languages), or the composer's placeholder longer
 * than the lines its box shows.
 */
function clippedLabels(page: Page, lang: Lang): Promise<Problem[]> {
  return page.evaluate(
    ({ strings, spaced }) => {
      const wanted = new Set(strings);
      const problems: { text: string; why: string }[] = [];
      const hides = (el: Element): boolean => {
        const s = getComputedStyle(el);
        return s.overflowX !== 'visible' || s.overflowY !== 'visible' || s.textOverflow === 'ellipsis';
      };
      for (const el of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
        if (el.closest('.overlay, .dialog, [aria-hidden="true"]')) continue;
        const own = Array.from(el.childNodes)
          .filter((n) => n.nodeType === Node.TEXT_NODE)
          .map((n) => n.textContent ?? '')
          .join('')
          .trim();
        if (!own || !wanted.has(own)) continue;
        const rect = el.getBoundingClientRect();
        if (rect.width === 0 || rect.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
        // Cut by its own box or by the nearest boxes that hide what overflows them.
        for (let box: HTMLElement | null = el, depth = 0; box && depth < 3; box = box.parentElement, depth++) {
          if (!hides(box)) continue;
          if (box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1) {
            problems.push({ text: own, why: `cut by ${box.className || box.tagName}` });
            break;
          }
        }
        if (spaced) {
          for (const node of Array.from(el.childNodes)) {
            if (node.nodeType !== Node.TEXT_NODE) continue;
            const text = node.textContent ?? '';
            for (const m of text.matchAll(/\S{2,}/g)) {
              const r = document.createRange();
              r.setStart(node, m.index);
              r.setEnd(node, m.index + m[0].length);
              const tops = new Set(Array.from(r.getClientRects()).map((q) => Math.round(q.top)));
              if (tops.size > 1) problems.push({ text: own, why: `"${m[0]}" broken across lines` });
            }
          }
        }
      }
      // A one-line field's placeholder wider than the field.
      const ctx = document.createElement('canvas').getContext('2d')!;
      for (const field of Array.from(document.querySelectorAll<HTMLInputElement>('input[placeholder]'))) {
        if (field.value !== '' || field.getClientRects().length === 0 || field.closest('.overlay')) continue;
        const s = getComputedStyle(field);
        ctx.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
        const room = field.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
        const need = ctx.measureText(field.placeholder).width;
        if (need > room + 1)
          problems.push({ text: field.placeholder, why: `placeholder needs ${Math.ceil(need)}px, has ${room}px` });
      }
      // Truncated text in the chat header keeps a readable part of itself (not "fa…").
      for (const el of Array.from(document.querySelectorAll<HTMLElement>('.chat-header *'))) {
        // The folder's path is cut at its start on purpose: the folder's name stays.
        if (el.classList.contains('folder-path')) continue;
        if (getComputedStyle(el).textOverflow !== 'ellipsis' || el.getClientRects().length === 0) continue;
        if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth < Math.min(el.scrollWidth, 96))
          problems.push({ text: el.textContent ?? '', why: `squeezed to ${el.clientWidth}px of ${el.scrollWidth}px` });
      }
      // The composer's placeholder: a textarea's placeholder that wraps past its rows is hidden.
      const input = document.querySelector<HTMLTextAreaElement>('[data-testid="composer-input"]');
      if (input && input.value === '' && input.placeholder) {
        const probe = input.cloneNode() as HTMLTextAreaElement;
        probe.style.cssText = `position:absolute;visibility:hidden;height:auto;width:${input.clientWidth}px`;
        probe.rows = 1;
        probe.value = input.placeholder;
        input.parentElement!.appendChild(probe);
        probe.style.height = '0px';
        const needed = probe.scrollHeight;
        probe.remove();
        if (needed > input.clientHeight + 1)
          problems.push({
            text: input.placeholder,
            why: `placeholder needs ${needed}px, shown in ${input.clientHeight}px`,
          });
      }
      return problems;
    },
    { strings: labels(lang), spaced: lang === 'en' },
  );
}

const SHOTS = resolve(repoRoot, 'e2e', 'screenshots');

test.describe.configure({ timeout: 400_000 });

test('no label, role label or placeholder is cut at 640 and 1280 px, with the Memory panel and the sidebar', async ({
  page,
  stack,
}) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await app.send('say hello');
  await app.waitIdle();
  await app.send('tidy the notes');
  await expect(app.toolCards.last()).toHaveAttribute('data-status', 'waiting');

  const found: string[] = [];
  const looks: [Lang, Theme][] = [
    ['en', 'light'],
    ['zh-CN', 'dark'],
    ['en', 'dark'],
    ['zh-CN', 'light'],
  ];
  for (const width of [640, 1280]) {
    await page.setViewportSize({ width, height: 820 });
    for (const [lang, theme] of looks) {
      await app.setLook(lang, theme);
      for (const panel of [false, true]) {
        for (const sidebar of [false, true]) {
          // Set by the buttons' own handlers: in a narrow window a scrim covers what is under an overlay.
          const toggle = async (want: boolean) => {
            if ((await page.locator('.sidebar').isVisible()) !== want)
              await page.getByTestId('sidebar-toggle').dispatchEvent('click');
            await expect(page.locator('.sidebar')).toBeVisible({ visible: want });
          };
          await toggle(false);
          if (panel) {
            await page.getByTestId('open-memory').click();
            await expect(page.getByTestId('memory-panel')).toBeVisible();
          }
          await toggle(sidebar);
          const where = `${width} ${lang}${panel ? ' memory' : ''}${sidebar ? ' sidebar' : ''}`;
          const check = async () => {
            for (const p of await clippedLabels(page, lang)) {
              found.push(`${where}: ${p.text} — ${p.why}`);
              console.log(found.at(-1));
            }
          };
          await check();
          if (sidebar) {
            // Search results name each hit's role.
            await page.getByTestId('session-search').fill('hello');
            await expect(page.locator('.search-hit-role').first()).toBeVisible();
            await check();
          }
          const name = `labels-${width}${panel ? '-memory' : ''}${sidebar ? '-sidebar' : ''}`;
          await page.screenshot({ path: resolve(SHOTS, `${name}-${lang}-${theme}.png`) });
          if (sidebar) await page.getByTestId('session-search').fill('');
          if (panel) {
            await toggle(false);
            await page.getByTestId('open-memory').dispatchEvent('click');
            await expect(page.getByTestId('memory-panel')).toHaveCount(0);
          }
        }
      }
    }
  }
  expect(found).toEqual([]);
});
