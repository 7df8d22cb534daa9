import { startFakeLlm, type FakeLlm } from '@threadline/fake-llm';
import { test, expect } from '../fixtures';
import { AppPage, type Lang, type Theme } from '../pages/AppPage';

// Issue 36: a first message over the model's window says so before it is sent, and sent anyway
// reaches the model as its beginning and end; a local server's real window is read when a profile
// is saved and shown in the profile form with where it came from.

test.use({ fakeWindow: 8_000 });
test.describe.configure({ timeout: 300_000 });

const task = 'Please summarise the table below by region and flag any month with a drop over 10%.';
const paste = `${task}\n${Array.from({ length: 3_000 }, (_, i) => `row ${i},north,${(i * 37) % 1000},${i % 12}`).join('\n')}`;

const looks: [Lang, Theme][] = [
  ['en', 'light'],
  ['en', 'dark'],
  ['zh-CN', 'light'],
  ['zh-CN', 'dark'],
];

let ollama: FakeLlm | null = null;
test.afterEach(async () => {
  await ollama?.close();
  ollama = null;
});

test('a huge first message is announced before it is sent, and answered when sent anyway', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  const warning = page.getByTestId('over-window-warning');
  await app.composer.fill(paste);
  for (const width of [1280, 640]) {
    await page.setViewportSize({ width, height: 860 });
    for (const [lang, theme] of looks) {
      await app.setLook(lang, theme);
      await app.composer.press('Enter');
      await expect(warning).toBeVisible();
      await expect(warning).toContainText(lang === 'en' ? 'This message alone is about' : '这条消息本身约有');
      // A first message has nothing before it to compact: Send anyway has the keyboard.
      await expect(page.getByTestId('over-window-compact')).toHaveCount(0);
      await expect(page.getByTestId('over-window-send')).toBeFocused();
      await app.shot(`over-window-first-${width}`, lang, theme);
      await page.keyboard.press('Escape');
      // Back to the draft, nothing sent.
      await expect(warning).toHaveCount(0);
      await expect(app.composer).toHaveValue(paste);
      await expect(app.userBubbles()).toHaveCount(0);
    }
  }
  await app.setLook('en', 'light');
  await app.composer.press('Enter');
  await page.getByTestId('over-window-send').click();
  await app.waitIdle();
  await expect(app.assistantMessages()).toHaveCount(1);
  // The model read its beginning (the task) and its end, under the window, with no refused request.
  const root = stack.fakeLlmUrl.replace(/\/v1$/, '');
  const requests = (await (await fetch(`${root}/_fake/requests`)).json()) as {
    path: string;
    status?: number;
    promptTokens?: number;
    body: unknown;
    isSummaryRequest?: boolean;
    rejected?: string;
  }[];
  const turns = requests.filter((r) => r.path.endsWith('/chat/completions') && !r.isSummaryRequest);
  expect(turns.filter((r) => r.rejected)).toEqual([]);
  const read = turns.filter((r) => r.status === 200 && JSON.stringify(r.body).includes('row 2999,north'));
  expect(read.length).toBeGreaterThan(0);
  for (const r of read) {
    expect(r.promptTokens!).toBeLessThanOrEqual(8_000);
    expect(JSON.stringify(r.body)).toContain('flag any month with a drop over 10%');
  }
});

test("a local server's window is read on save and shown in the profile form", async ({ page, stack }) => {
  ollama = await startFakeLlm({
    local: { kind: 'ollama', contextLength: 131_072, numCtx: 4_096, numCtxInParameters: true },
  });
  const profile = await stack.rpc<{ id: string; serverWindow: { window: number; alias: string | null } | null }>(
    'providers.upsert',
    { preset: 'ollama', name: 'Ollama here', baseUrl: ollama.url, model: 'fake-model', contextWindow: 32_768 },
  );
  // Ollama runs the model with num_ctx 4,096; asked for 32,768, a copy that runs with it is made.
  expect(profile.serverWindow).toMatchObject({ window: 32_768, alias: 'fake-model:ctx32768' });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  for (const width of [1280, 640]) {
    await page.setViewportSize({ width, height: 860 });
    for (const [lang, theme] of looks) {
      await app.setLook(lang, theme);
      await app.openSettings('providers');
      await page.getByTestId('provider-item').filter({ hasText: 'Ollama here' }).getByTestId('edit-profile').click();
      const hint = page.getByTestId('provider-server-window-found');
      await expect(hint).toContainText('32,768');
      await expect(hint).toContainText('fake-model:ctx32768');
      await hint.scrollIntoViewIfNeeded();
      await app.shot(`server-window-${width}`, lang, theme);
      await app.closeSettings();
    }
  }
});

test('a correction supersedes the instruction it rules out, shown as such in the Memory panel', async ({
  page,
  stack,
}) => {
  // CFPM keeps the session memory up to date after each turn.
  await stack.rpc('settings.set', { patch: { compaction: { strategy: 'cfpm_memory_v1' } } });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await app.send('Use axios for the outbound health check.');
  await app.waitIdle();
  await app.send("Actually, don't use axios; use fetch.");
  await app.waitIdle();
  await page.getByTestId('open-memory').click();
  const goals = page.getByTestId('fact-group-goal');
  await expect(goals.locator('[data-status="superseded"]')).toContainText('Use axios for the outbound health check.');
  await expect(goals.locator('[data-status="active"]')).toContainText("don't use axios; use fetch.");
  await page.keyboard.press('Escape');
  for (const width of [1280, 640]) {
    await page.setViewportSize({ width, height: 860 });
    for (const [lang, theme] of looks) {
      await app.setLook(lang, theme);
      await page.getByTestId('open-memory').click();
      await expect(goals.locator('[data-status="superseded"]')).toBeVisible();
      await app.shot(`memory-superseded-${width}`, lang, theme);
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('memory-panel')).toHaveCount(0);
    }
  }
});

test('a compaction in progress shows its step, how many and the tokens it started from', async ({ page, stack }) => {
  await stack.rpc('settings.set', { patch: { compaction: { strategy: 'legacy_segmented' } } });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  const notes = (topic: string) =>
    `${topic} ${Array.from({ length: 30 }, (_, i) => `Point ${i}: what changed in module ${i} and why.`).join(' ')}`;
  for (const topic of ['Draft the release notes for 2.4.', 'Add the migration guide.', 'Now the FAQ.']) {
    await app.send(notes(topic));
    await app.waitIdle();
  }
  // The summary call answers after two minutes (a non-streamed answer waits `delayMsPerChunk` once),
  // so the running divider stays on screen until it is stopped.
  const root = stack.fakeLlmUrl.replace(/\/v1$/, '');
  const rules = {
    rules: [
      {
        match: { summaryRequest: true },
        reply: { content: 'The user asked for release notes.', delayMsPerChunk: 120_000 },
      },
    ],
  };
  await fetch(`${root}/_fake/rules`, { method: 'POST', body: JSON.stringify(rules) });
  await app.compactButton.click();
  const live = page.locator('[data-testid="compaction-divider"][data-live="true"]');
  await expect(live.getByTestId('compaction-progress')).toBeVisible();
  for (const width of [1280, 640]) {
    await page.setViewportSize({ width, height: 860 });
    for (const [lang, theme] of looks) {
      await app.setLook(lang, theme);
      await expect(live.getByTestId('compaction-progress')).toContainText(lang === 'en' ? 'step' : '步');
      await app.scrollToBottom();
      await expect(live).toBeInViewport();
      await app.shot(`compaction-progress-${width}`, lang, theme);
    }
  }
  await live.getByTestId('compaction-cancel').click();
  await expect(live).toHaveCount(0);
});
