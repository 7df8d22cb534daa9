import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionSummary } from '@threadline/protocol';
import { test, expect, type Stack } from '../fixtures';
import { AppPage, type Lang, type Theme } from '../pages/AppPage';

// Issue 26: what a ChatGPT or Claude desktop user expects of everyday chat — a title the model
// makes, deny with a reason, Continue after a stopped reply, a message queued during a turn, a
// reasoning model's thinking shown collapsed; at 640 and 1280 px, both languages and themes.

const story = Array.from({ length: 160 }, (_, i) => `Paragraph ${i + 1} of a long story.`).join('\n\n');

test.use({
  fakeRules: {
    rules: [
      {
        match: { lastUserIncludes: 'tidy the notes', hasTools: true },
        reply: { toolCalls: [{ name: 'write_file', arguments: { path: '../../outside/notes.txt', content: 'gone' } }] },
      },
      {
        match: { lastToolResultIncludes: 'and said:' },
        reply: { content: 'Understood: I left the notes as they are.' },
      },
      {
        match: { lastUserIncludes: 'think it through' },
        reply: {
          reasoning: 'The user wants a short plan. Three steps are enough; keep it brief.',
          content: 'Plan: 1. measure, 2. change, 3. measure again.',
        },
      },
      { match: { lastUserIncludes: 'long story' }, reply: { content: story, delayMsPerChunk: 25, chunkSize: 12 } },
    ],
  },
});

/** Every request fake-llm received (GET /v1/models has no body). */
type FakeRequest = { body?: { model: string; messages: { role: string; content: unknown }[] } };

async function fakeRequests(stack: Stack): Promise<FakeRequest[]> {
  const origin = new URL(stack.fakeLlmUrl).origin;
  return (await (await fetch(`${origin}/_fake/requests`)).json()) as FakeRequest[];
}

async function looks(app: AppPage, name: string, width: number): Promise<void> {
  await app.page.setViewportSize({ width, height: 820 });
  for (const [lang, theme] of [
    ['en', 'light'],
    ['zh-CN', 'dark'],
  ] as [Lang, Theme][]) {
    await app.setLook(lang, theme);
    await app.shot(`${name}-${width}`, lang, theme);
  }
  await app.setLook('en', 'light');
  await app.page.setViewportSize({ width: 1280, height: 820 });
}

test('titles, deny with a reason, continue, a queued message, reasoning', async ({ page, stack }) => {
  // Many looks (two languages and themes at two widths): a long walk, not a slow one.
  test.setTimeout(300_000);
  const root = join(stack.dataDir, '..');
  mkdirSync(join(root, 'outside'), { recursive: true });
  writeFileSync(join(root, 'outside', 'notes.txt'), 'keep me');
  const app = new AppPage(page);
  await page.setViewportSize({ width: 1280, height: 820 });
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();

  // ---- a title from the model after the first reply (fake-llm: "Talk: " + four words) ----
  await app.send('think it through: how do I speed up the test suite?');
  await app.waitIdle();
  await expect(page.getByTestId('chat-title')).toHaveText('Talk: think it through: how');
  await expect(app.session('Talk: think it through: how')).toHaveCount(1);

  // ---- the reasoning is collapsed above the answer; never sent back ----
  const thought = page.getByTestId('reasoning').last();
  await expect(thought).toBeVisible();
  await expect(thought.locator('summary')).toHaveText('Thought process');
  await expect(thought).not.toHaveAttribute('open', '');
  await thought.locator('summary').click();
  await expect(thought).toContainText('Three steps are enough');

  // ---- deny with a reason: the model reads it ----
  await app.send('tidy the notes next door');
  const card = app.toolCards.last();
  await expect(card).toHaveAttribute('data-status', 'waiting');
  await card.getByTestId('deny-with-reason').click();
  await card.getByTestId('deny-reason').fill('those notes are mine, leave them');
  await looks(app, 'deny-reason', 640);
  await card.getByTestId('deny-reason-send').click();
  await expect(card).toHaveAttribute('data-status', 'denied');
  await expect(app.assistantMessages().last()).toContainText('Understood: I left the notes as they are.');
  const toolResult = (await fakeRequests(stack))
    .flatMap((r) => r.body?.messages ?? [])
    .find((m) => m.role === 'tool' && String(m.content).includes('and said:'));
  expect(String(toolResult?.content)).toContain('those notes are mine, leave them');

  // ---- a message typed during a turn is queued and sent after it (the turn waits on a card) ----
  await app.send('tidy the notes, second try');
  const waiting = app.toolCards.last();
  await expect(waiting).toHaveAttribute('data-status', 'waiting');
  await app.composer.fill('and then a summary');
  await app.composer.press('Enter');
  await expect(page.getByTestId('queued-item')).toHaveCount(1);
  await expect(page.getByTestId('queued-item')).toContainText('and then a summary');
  await looks(app, 'queued', 1280);
  await looks(app, 'queued', 640);
  // Nothing is sent while the turn runs; its end sends the queued message.
  expect(await app.userBubbles().filter({ hasText: 'and then a summary' }).count()).toBe(0);
  await waiting.getByTestId('deny').click();
  await expect(app.userBubbles().filter({ hasText: 'and then a summary' })).toHaveCount(1);
  await expect(page.getByTestId('queued-list')).toHaveCount(0);
  await app.waitIdle();

  // ---- Continue after a stopped reply ----
  await app.send('tell me a long story');
  await expect(page.getByTestId('msg-streaming')).toContainText('Paragraph 2');
  await app.stopButton.click();
  await app.waitIdle();
  const note = page.getByTestId('partial-tag').last();
  // Said in place, without hovering.
  await expect(note).toBeVisible();
  await expect(note).toHaveText('Interrupted: this answer is incomplete');
  await looks(app, 'continue', 640);
  await looks(app, 'continue', 1280);
  await page.getByTestId('continue-button').click();
  await expect(app.userBubbles().last()).toHaveText('Continue from where you stopped.');
  await app.waitIdle();

  // The session keeps the model's title through all of it.
  const [session] = await stack.rpc<SessionSummary[]>('sessions.list');
  expect(session!.title).toBe('Talk: think it through: how');

  // ---- 640 px: the sidebar gives the chat the width, and comes back on request ----
  await page.setViewportSize({ width: 640, height: 820 });
  await expect(page.locator('.sidebar')).toBeHidden();
  await page.getByTestId('sidebar-toggle').click();
  await expect(page.locator('.sidebar')).toBeVisible();
  await app.shot('sidebar-overlay-640', 'en', 'light');
  await page.getByTestId('new-session').click();
  await expect(page.locator('.sidebar')).toBeHidden();
  await app.page.setViewportSize({ width: 1280, height: 820 });
  await expect(page.locator('.sidebar')).toBeVisible();
  await page.getByTestId('sidebar-toggle').click();
  await expect(page.locator('.sidebar')).toBeHidden();
  await page.getByTestId('sidebar-toggle').click();
  await expect(page.locator('.sidebar')).toBeVisible();

  // ---- the rules chip in the header at 640 px, with the Memory panel open; Settings at 640 px ----
  await app.session('Talk: think it through: how').first().click();
  await app.send('tidy the notes again');
  const again = app.toolCards.last();
  await expect(again).toHaveAttribute('data-status', 'waiting');
  await again.getByTestId('remember-allow').click();
  await app.waitIdle();
  await page.setViewportSize({ width: 640, height: 820 });
  const pill = page.getByTestId('session-rules');
  // At 640 px the chip is its icon (its label, count and rules are one click away), whole on screen.
  await expect(pill).toBeInViewport({ ratio: 1 });
  for (const [lang, theme] of [
    ['en', 'light'],
    ['zh-CN', 'dark'],
  ] as [Lang, Theme][]) {
    await app.setLook(lang, theme);
    await page.getByTestId('open-memory').click();
    await expect(pill).toBeInViewport({ ratio: 1 });
    await app.shot('header-pill-memory-640', lang, theme);
    await page.keyboard.press('Escape');
  }
  await app.setLook('en', 'light');
  for (const tab of ['general', 'providers'] as const) {
    await app.openSettings(tab);
    await app.shot(`settings-${tab}-640`, 'en', 'light');
    await app.closeSettings();
  }
});
