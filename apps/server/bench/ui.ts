// The UI benchmark: time to first paint and to interactive for a 5,000-message session in browser mode,
// and frame times while scrolling a 10,000-message one (figures only: tests never assert time).
// A real SQLite file seeded with the session, the real browser-mode server and renderer build, a
// real Chromium (Debian's, as the e2e tests use). Each run is a fresh browser context (cold page
// cache, warm server), so the figures are what opening the app on that session costs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openStore } from '@threadline/agent';
import { startBrowserMode } from '../src/browserMode';

const ROOT = resolve(import.meta.dirname, '../../..');
const WEB = join(ROOT, 'apps/desktop/out/web');

export interface UiBenchResult {
  messages: number;
  runs: number;
  firstPaintMs: number;
  interactiveMs: number;
  scroll: ScrollFigures;
}

/** Frames while scrolling a long session from its end to its start, then jumping around. */
export interface ScrollFigures {
  messages: number;
  frames: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  over50ms: number;
  longTasks: number;
}

/** 5,000 messages of a coding session: requests, Markdown answers, tool calls with outputs. */
function seed(file: string, count: number): void {
  const store = openStore({ file, env: {} });
  try {
    const s = store.sessions.create('A long session');
    const batch = [];
    for (let i = 0; batch.length < count; i++) {
      const id = `call_${i}`;
      batch.push(
        { role: 'user' as const, content: `Step ${i}: look at module ${i % 40} and fix what fails.` },
        {
          role: 'assistant' as const,
          content: `Running the tests of module ${i % 40}.`,
          tool_calls: [
            {
              id,
              type: 'function' as const,
              function: { name: 'shell', arguments: JSON.stringify({ command: `pnpm vitest run src/m${i % 40}` }) },
            },
          ],
        },
        {
          role: 'tool' as const,
          tool_call_id: id,
          content: `✓ src/m${i % 40}/a.test.ts (12 tests)\n✓ src/m${i % 40}/b.test.ts (4 tests)\nTest Files 2 passed`,
        },
        {
          role: 'assistant' as const,
          content: `All green for **module ${i % 40}**:\n\n- \`a.test.ts\`: 12 tests\n- \`b.test.ts\`: 4 tests\n\n\`\`\`ts\nexport const fixed${i} = true;\n\`\`\``,
        },
      );
    }
    for (let i = 0; i < count; i += 500) store.messages.append(s.id, batch.slice(i, Math.min(i + 500, count)));
  } finally {
    store.close();
  }
}

const SCROLL_MESSAGES = 10_000;
const BENCH_ENV = {
  THREADLINE_PROVIDER_URL: 'http://127.0.0.1:9/v1',
  THREADLINE_MODEL: 'gpt-4o',
  THREADLINE_CONTEXT_WINDOW: '128000',
};

/** Opens the seeded session in a fresh page and scrolls it (see measureScroll). */
async function scrollRun(browser: Browser, url: string, messages: number): Promise<ScrollFigures> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.locator('[data-testid=msg-assistant]').last().waitFor({ timeout: 120_000 });
    return await measureScroll(page, messages);
  } finally {
    await context.close();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

// Page scripts as source text: tsx's helpers (e.g. __name) do not exist in the page.
const RECORD_FRAMES = `(() => {
  window.__frames = [];
  window.__long = 0;
  let last = performance.now();
  const loop = (t) => { window.__frames.push(t - last); last = t; requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
  try {
    new PerformanceObserver((list) => { window.__long += list.getEntries().length; }).observe({ type: 'longtask', buffered: false });
  } catch { /* longtask not supported */ }
})()`;
const FRAME_STATS = `(() => {
  const frames = window.__frames.slice(2).sort((a, b) => a - b);
  const q = (p) => frames[Math.min(frames.length - 1, Math.floor(p * frames.length))] ?? 0;
  return {
    frames: frames.length, p50: q(0.5), p95: q(0.95), p99: q(0.99), max: frames[frames.length - 1] ?? 0,
    over50ms: frames.filter((f) => f > 50).length, longTasks: window.__long,
  };
})()`;

/** Wheel steps from the bottom to well up the session, then scrollbar-like jumps; every frame timed. */
async function measureScroll(page: Page, messages: number): Promise<ScrollFigures> {
  const list = page.getByTestId('message-list');
  const box = (await list.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.evaluate(RECORD_FRAMES);
  for (let i = 0; i < 150; i++) {
    await page.mouse.wheel(0, -1200);
    await page.waitForTimeout(16);
  }
  for (const f of [0.25, 0.5, 0.1, 0.9, 0]) {
    await list.evaluate((el, frac) => {
      el.scrollTop = el.scrollHeight * frac;
    }, f);
    await page.waitForTimeout(120);
  }
  const stats = (await page.evaluate(FRAME_STATS)) as Omit<ScrollFigures, 'messages'>;
  return { messages, ...stats };
}

export async function measureUi(opts: { quick?: boolean } = {}): Promise<UiBenchResult> {
  if (!existsSync(join(WEB, 'index.html'))) {
    execFileSync('pnpm', ['--filter', '@threadline/desktop', 'build:web'], { cwd: ROOT, stdio: 'ignore' });
  }
  const count = 5000;
  const runs = opts.quick ? 2 : 5;
  const dataDir = mkdtempSync(join(tmpdir(), 'tl-ui-bench-'));
  seed(join(dataDir, 'threadline.sqlite'), count);
  const app = await startBrowserMode({
    port: 0,
    dataDir,
    staticDir: WEB,
    env: BENCH_ENV,
  });
  const scrollDir = mkdtempSync(join(tmpdir(), 'tl-ui-bench-scroll-'));
  seed(join(scrollDir, 'threadline.sqlite'), SCROLL_MESSAGES);
  const scrollApp = await startBrowserMode({ port: 0, dataDir: scrollDir, staticDir: WEB, env: BENCH_ENV });
  const browser = await chromium.launch({
    executablePath: process.env.THREADLINE_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  const paints: number[] = [];
  const ready: number[] = [];
  let scroll: ScrollFigures | null = null;
  try {
    for (let r = 0; r < runs; r++) {
      const context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
      const page = await context.newPage();
      await page.goto(app.url);
      // Interactive: the session's last rows are drawn and the input takes text.
      await page.locator('[data-testid=msg-assistant]').last().waitFor({ timeout: 60_000 });
      await page.getByTestId('composer-input').fill('typed');
      const t = await page.evaluate(() => ({
        now: performance.now(),
        paint:
          performance.getEntriesByName('first-contentful-paint')[0]?.startTime ??
          performance.getEntriesByName('first-paint')[0]?.startTime ??
          -1,
      }));
      paints.push(t.paint);
      ready.push(t.now);
      await context.close();
    }
    scroll = await scrollRun(browser, scrollApp.url, SCROLL_MESSAGES);
  } finally {
    await browser.close();
    await app.close();
    await scrollApp.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(scrollDir, { recursive: true, force: true });
  }
  return { messages: count, runs, firstPaintMs: median(paints), interactiveMs: median(ready), scroll: scroll! };
}

export async function runUiBench(opts: { quick?: boolean } = {}): Promise<void> {
  const r = await measureUi(opts);
  console.log('browser mode (real server, renderer build and Chromium; fresh page each run)');
  console.log(
    `  ${r.messages}-message session: first contentful paint p50 ${r.firstPaintMs.toFixed(0)} ms, interactive (last rows drawn, input typed into) p50 ${r.interactiveMs.toFixed(0)} ms over ${r.runs} runs`,
  );
  const f = r.scroll;
  console.log(
    `  scrolling a ${f.messages}-message session (150 wheel steps up, 5 jumps): ${f.frames} frames, p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, max ${f.max.toFixed(1)} ms, ${f.over50ms} over 50 ms, ${f.longTasks} long tasks`,
  );
}
