import type { Page } from '@playwright/test';
import type { StoredMessage } from '@threadline/protocol';
import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// A 10,000-message session: the list is virtualized (a small, contiguous window of rows in the
// DOM wherever it is scrolled), scrolling reaches both ends, and the DOM does not grow while
// scrolling. Nothing here reads a clock; frame times are measured by `pnpm bench` (ui part).
// Seeding 10,000 messages through the model would take minutes, so the session is a real one from
// the server and its history is served from a generated list.

const COUNT = 10_000;

function generate(sessionId: string): StoredMessage[] {
  const out: StoredMessage[] = [];
  for (let i = 0; i < COUNT; i++) {
    const user = i % 2 === 0;
    const content = user
      ? `Question ${i}: how does step ${i} affect the build?`
      : i % 10 === 1
        ? `Answer ${i}:\n\n\`\`\`ts\nexport const step${i} = (x: number) => x * ${i};\n\`\`\`\n\n- point one\n- point two`
        : `Answer ${i}: it **changes** the cache key, so the next run is cold. ${'More detail. '.repeat(i % 7)}`;
    out.push({
      id: `perf-${i}`,
      sessionId,
      seq: i + 1,
      createdAt: 1_700_000_000_000 + i,
      role: user ? 'user' : 'assistant',
      content,
      kind: 'normal',
      visibility: { user: true, agent: true },
      tokens: null,
    });
  }
  return out;
}

interface RowWindow {
  slots: number;
  contiguous: boolean;
  firstSeq: number;
  lastSeq: number;
  elements: number;
}

/** What the list has in the DOM right now. */
function rowWindow(page: Page): Promise<RowWindow> {
  return page.evaluate(() => {
    const slots = [...document.querySelectorAll<HTMLElement>('.message-slot')];
    const indices = slots.map((s) => Number(s.dataset.index)).sort((a, b) => a - b);
    const seqs = [...document.querySelectorAll<HTMLElement>('.message-slot [data-seq]')].map((e) =>
      Number(e.dataset.seq),
    );
    return {
      slots: slots.length,
      contiguous: indices.every((v, i) => i === 0 || v === indices[i - 1]! + 1),
      firstSeq: Math.min(...seqs),
      lastSeq: Math.max(...seqs),
      elements: document.getElementsByTagName('*').length,
    };
  });
}

test('a 10,000-message session is virtualized and scrolls from end to end', async ({ page, stack }) => {
  const session = await stack.rpc<{ id: string }>('sessions.create', { title: 'Ten thousand messages' });
  const history = generate(session.id);
  await page.route('**/api/rpc/messages.list', async (route) => {
    const body = route.request().postDataJSON() as { sessionId?: string };
    if (body.sessionId !== session.id) return route.continue();
    await route.fulfill({ contentType: 'application/json', body: JSON.stringify({ ok: true, data: history }) });
  });

  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.session('Ten thousand messages').locator('.session-main').click();
  await expect(page.locator('[data-seq="10000"]')).toBeVisible();

  // Opened at the end, with a small window of rows.
  const atEnd = await rowWindow(page);
  expect(atEnd.slots).toBeGreaterThan(0);
  expect(atEnd.slots).toBeLessThan(80);
  expect(atEnd.contiguous).toBe(true);
  expect(atEnd.lastSeq).toBe(COUNT);
  const seen: RowWindow[] = [atEnd];
  const list = app.messageList;
  const scrollTop = () => list.evaluate((el) => el.scrollTop);

  // Wheel steps up: each one moves the list (waited for, not timed) and rows before the end come in.
  const box = (await list.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 20; i++) {
    const before = await scrollTop();
    await page.mouse.wheel(0, -1200);
    await expect.poll(scrollTop).toBeLessThan(before);
  }
  const afterWheel = await rowWindow(page);
  expect(afterWheel.lastSeq).toBeLessThan(COUNT);
  seen.push(afterWheel);

  // Jumps, as a scrollbar drag does: each lands further into the session than the one before.
  let previous = 0;
  for (const fraction of [0.1, 0.25, 0.5, 0.9]) {
    const from = (await rowWindow(page)).firstSeq;
    await list.evaluate((el, f) => {
      el.scrollTop = (el.scrollHeight - el.clientHeight) * f;
    }, fraction);
    // Wait for the rows of the new position (the old window may still be drawn right after the jump).
    await expect
      .poll(async () => {
        const first = (await rowWindow(page)).firstSeq;
        return first !== from && first > previous;
      })
      .toBe(true);
    const w = await rowWindow(page);
    previous = w.firstSeq;
    seen.push(w);
  }

  // Both ends are reachable (heights are measured as rows come in, so the end may move: retry).
  await expect(async () => {
    await list.evaluate((el) => (el.scrollTop = 0));
    await expect(page.locator('[data-seq="1"]')).toBeVisible({ timeout: 1000 });
  }).toPass();
  seen.push(await rowWindow(page));
  await expect(async () => {
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect(page.locator(`[data-seq="${COUNT}"]`)).toBeVisible({ timeout: 1000 });
  }).toPass();
  seen.push(await rowWindow(page));

  // Everywhere: a small contiguous window, and a DOM no bigger than at the start (give or take the
  // rows' own sizes), never one that grows with what was scrolled past.
  for (const w of seen) {
    expect(w.slots).toBeLessThan(80);
    expect(w.contiguous).toBe(true);
    expect(w.elements).toBeLessThan(atEnd.elements * 2);
  }
  await app.shot('scroll-10k', 'en', 'light');
});
