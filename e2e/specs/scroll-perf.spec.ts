import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { StoredMessage } from '@threadline/protocol';
import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';
import { repoRoot } from '../support/processes';

// A 10,000-message session must scroll without long frames. Seeding 10,000 messages through the
// model would take minutes, so the session is a real one from the server and its history is
// served from a generated list (the renderer's work is what is measured here).

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

test('a 10,000-message session scrolls without long frames', async ({ page, stack }) => {
  const session = await stack.rpc<{ id: string }>('sessions.create', { title: 'Ten thousand messages' });
  const history = generate(session.id);
  await page.route('**/api/rpc/messages.list', async (route) => {
    const body = route.request().postDataJSON() as { sessionId?: string };
    if (body.sessionId !== session.id) return route.continue();
    await route.fulfill({ contentType: 'application/json', body: JSON.stringify({ ok: true, data: history }) });
  });

  const app = new AppPage(page);
  const t0 = Date.now();
  await app.open(stack.url);
  await app.waitReady();
  await app.session('Ten thousand messages').locator('.session-main').click();
  await expect(page.locator('[data-seq="10000"]')).toBeVisible();
  const openMs = Date.now() - t0;
  const rendered = await page.locator('.message-slot').count();
  expect(rendered).toBeLessThan(80);

  // Scroll from the bottom to the top with wheel steps, recording every frame.
  const box = (await app.messageList.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __long: number };
    w.__frames = [];
    w.__long = 0;
    let last = performance.now();
    const loop = (t: number) => {
      w.__frames.push(t - last);
      last = t;
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
    try {
      new PerformanceObserver((list) => {
        w.__long += list.getEntries().length;
      }).observe({ type: 'longtask', buffered: false });
    } catch {
      /* longtask not supported */
    }
  });
  for (let i = 0; i < 150; i++) {
    await page.mouse.wheel(0, -1200);
    await page.waitForTimeout(16);
  }
  // Then jump far (scrollbar drag equivalent) a few times.
  for (const f of [0.25, 0.5, 0.1, 0.9, 0]) {
    await app.messageList.evaluate((el, frac) => {
      el.scrollTop = el.scrollHeight * frac;
    }, f);
    await page.waitForTimeout(120);
  }
  const stats = await page.evaluate(() => {
    const w = window as unknown as { __frames: number[]; __long: number };
    const frames = w.__frames.slice(2).sort((a, b) => a - b);
    const q = (p: number) => frames[Math.min(frames.length - 1, Math.floor(p * frames.length))] ?? 0;
    return {
      frames: frames.length,
      p50: q(0.5),
      p95: q(0.95),
      p99: q(0.99),
      max: frames[frames.length - 1] ?? 0,
      over50ms: frames.filter((f) => f > 50).length,
      longTasks: w.__long,
    };
  });
  const figures = { messages: COUNT, openMs, renderedSlots: rendered, ...stats };
  console.log('scroll figures', JSON.stringify(figures));
  writeFileSync(resolve(repoRoot, 'e2e', 'screenshots', 'scroll-perf.json'), JSON.stringify(figures, null, 2));
  await app.shot('scroll-10k', 'en', 'light');
  expect(stats.p95).toBeLessThan(50);
  expect(stats.over50ms).toBeLessThan(Math.max(3, stats.frames * 0.02));
});
