import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 16 §1–3: edit → new branch → switch back; regenerate; retry after a provider error with
// no duplicated request (in messages.list and in what the fake provider received); search of a
// word inside a message of another session, in English and Chinese.

interface Msg {
  id: string;
  role: string;
  kind: string;
  content: string | null;
  versions?: { index: number; count: number };
}
interface Recorded {
  path: string;
  body?: { messages?: { role: string; content: unknown }[] };
}

/** The chat requests the fake provider received, oldest first (its control route). */
async function providerRequests(fakeLlmUrl: string): Promise<{ role: string; content: unknown }[][]> {
  const res = await fetch(fakeLlmUrl.replace(/\/v1$/, '') + '/_fake/requests');
  const all = (await res.json()) as Recorded[];
  return all.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body?.messages ?? []);
}

const STORY = Array.from({ length: 80 }, (_, i) => `Paragraph ${i + 1}: the thread runs on.`).join('\n\n');

const noConsecutiveUsers = (msgs: { role: string }[]): boolean =>
  msgs.every((m, i) => i === 0 || !(m.role === 'user' && msgs[i - 1]!.role === 'user'));

test.use({
  fakeRules: {
    rules: [
      // The first request that says "flaky" fails once (a 400 is not retried by the client).
      { match: { lastUserIncludes: 'flaky' }, reply: { error: { status: 400, message: 'Bad luck' } }, times: 1 },
      // A long answer: what was said before it is scrolled far out of view.
      { match: { lastUserIncludes: 'long story' }, reply: { content: STORY } },
    ],
  },
});

test('edit → new branch → switch back; regenerate; retry without a copy', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await app.send('first question');
  await app.waitIdle();
  await app.send('second question');
  await app.waitIdle();

  // ---- edit the second question ----
  const second = app.userBubbles().filter({ hasText: 'second question' });
  await second.hover();
  await second.getByTestId('edit-message').click();
  const editor = page.getByTestId('message-editor-input');
  await expect(editor).toBeFocused();
  await editor.fill('second, reworded');
  await editor.press('Enter');
  await app.waitIdle();
  await expect(app.assistantMessages().last()).toContainText('You said: second, reworded');
  await expect(page.getByText('You said: second question')).toHaveCount(0);
  const edited = app.userBubbles().filter({ hasText: 'second, reworded' });
  await expect(edited.getByTestId('version-label')).toHaveText('2/2');
  await app.shot('branch-edited', 'en', 'light');

  // ---- switch back to version 1 ----
  await edited.getByTestId('version-prev').click();
  const original = app.userBubbles().filter({ hasText: 'second question' });
  await expect(original.getByTestId('version-label')).toHaveText('1/2');
  await expect(app.assistantMessages().last()).toContainText('You said: second question');
  await expect(page.getByText('second, reworded')).toHaveCount(0);
  // The host shows (and will send) the same branch after a reload.
  await page.reload();
  await app.waitReady();
  await expect(app.assistantMessages().last()).toContainText('You said: second question');

  // ---- regenerate the last reply ----
  const last = app.assistantMessages().last();
  await last.hover();
  await last.getByTestId('regenerate').click();
  await app.waitIdle();
  await expect(app.assistantMessages().last().getByTestId('version-label')).toHaveText('2/2');
  const list = await stack.rpc<Msg[]>('messages.list', {
    sessionId: await page.getByTestId('session-item').first().getAttribute('data-session-id'),
  });
  expect(list.map((m) => m.content)).toEqual([
    'first question',
    'You said: first question',
    'second question',
    'You said: second question',
  ]);
  expect(list[3]!.versions).toMatchObject({ index: 2, count: 2 });
  await app.shot('branch-regenerated', 'en', 'light');
  await app.setLook('zh-CN', 'dark');
  await expect(page.getByTestId('regenerate')).toHaveAttribute('title', '重新生成回复');
  await app.userBubbles().first().hover();
  await app.userBubbles().first().getByTestId('edit-message').click();
  await expect(page.getByTestId('message-editor')).toContainText('回车发送新版本');
  await app.shot('branch-editor', 'zh-CN', 'dark');
  await page.getByTestId('message-editor-input').press('Escape');
  await expect(page.getByTestId('message-editor')).toHaveCount(0);
  await app.setLook('en', 'light');

  // ---- retry after a provider error ----
  await app.send('a flaky request');
  await app.waitIdle();
  const error = page.getByTestId('inline-error').last();
  await expect(error).toBeVisible();
  await expect(error.getByTestId('open-profile')).toBeVisible();
  await error.getByTestId('retry-button').click();
  await app.waitIdle();
  await expect(app.assistantMessages().last()).toContainText('You said: a flaky request');
  await expect(app.userBubbles().filter({ hasText: 'a flaky request' })).toHaveCount(1);
  const sessionId = await page.getByTestId('session-item').first().getAttribute('data-session-id');
  const after = await stack.rpc<Msg[]>('messages.list', { sessionId });
  const requests = after.filter((m) => m.role === 'user' && m.kind === 'normal').map((m) => m.content);
  expect(requests).toEqual(['first question', 'second question', 'a flaky request']);
  const sent = await providerRequests(stack.fakeLlmUrl);
  const retried = sent.at(-1)!.filter((m) => m.role !== 'system');
  expect(retried.filter((m) => m.content === 'a flaky request')).toHaveLength(1);
  expect(noConsecutiveUsers(retried)).toBe(true);
  expect(sent.every((msgs) => noConsecutiveUsers(msgs))).toBe(true);
});

test('search finds a word inside a message of another session, in English and Chinese', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await app.send('please run seq 5 and show the output');
  await app.waitIdle();
  await app.send('now tell a long story');
  await app.waitIdle();
  await expect(app.userBubbles().filter({ hasText: 'please run seq 5' })).not.toBeInViewport();
  await app.newSession();
  await app.send('请帮我检查缓存命中率');
  await app.waitIdle();
  await app.newSession();
  await app.send('an unrelated third session');
  await app.waitIdle();

  const search = page.getByTestId('session-search');
  await search.fill('seq 5');
  const hits = page.getByTestId('search-hit');
  // The request and its echoed answer both hold the words.
  await expect(hits).toHaveCount(2);
  await expect(hits.first().locator('mark')).toHaveText('seq 5');
  await app.shot('search-en', 'en', 'light');
  // The user's own message (newest first: the answer, then the request).
  await hits.filter({ has: page.locator('.search-hit-role', { hasText: /^you$/ }) }).click();
  await expect(page.getByTestId('chat-title')).toContainText('please run seq 5');
  const target = app.userBubbles().filter({ hasText: 'please run seq 5' });
  await expect(target).toBeInViewport();

  await search.fill('命中率');
  await expect(hits).toHaveCount(2);
  await expect(hits.first().locator('mark')).toHaveText('命中率');
  // Two characters: below the trigram size, still found.
  await search.fill('缓存');
  await expect(hits).toHaveCount(2);
  await hits.last().click();
  await expect(page.getByTestId('chat-title')).toContainText('请帮我检查缓存命中率');
  await app.setLook('zh-CN', 'dark');
  await search.fill('命中率');
  await expect(hits).toHaveCount(2);
  await app.shot('search-zh', 'zh-CN', 'dark');
  await search.fill('nothing like this anywhere');
  await expect(page.getByTestId('search-results')).toContainText('没有消息包含这段文字');
});
