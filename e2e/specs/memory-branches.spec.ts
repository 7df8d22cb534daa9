import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';
import { MemoryPanelPage } from '../pages/MemoryPanel';

// Issue 16 §1: memory belongs to its branch. An open item learned on a branch the user left by
// editing an earlier message leaves the Memory panel; switching back brings it again.

const SHARED = 'Next step: read the onboarding guide first.';
const ABANDONED = 'Next step: deploy the alpha build to staging.';

test.use({
  fakeRules: {
    rules: [
      { match: { lastUserIncludes: 'hello' }, reply: { content: SHARED } },
      { match: { lastUserIncludes: 'make a plan' }, reply: { content: ABANDONED } },
    ],
  },
});

test('the Memory panel follows the branch shown', async ({ page, stack }) => {
  const app = new AppPage(page);
  const memory = new MemoryPanelPage(page);
  await stack.rpc('settings.set', { patch: { compaction: { strategy: 'cfpm_memory_v1' } } });
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await app.send('hello');
  await app.waitIdle();
  await app.send('make a plan');
  await app.waitIdle();
  await memory.open();
  await expect(memory.fact(SHARED)).toBeVisible();
  await expect(memory.fact(ABANDONED)).toBeVisible();

  // ---- edit "make a plan": a new branch without the plan's open item ----
  const plan = app.userBubbles().filter({ hasText: 'make a plan' });
  await plan.hover();
  await plan.getByTestId('edit-message').click();
  const editor = page.getByTestId('message-editor-input');
  await editor.fill('never mind');
  await editor.press('Enter');
  await app.waitIdle();
  await expect(memory.fact(SHARED)).toBeVisible();
  await expect(memory.facts.filter({ hasText: ABANDONED })).toHaveCount(0);

  // ---- switch back: the plan's open item is there again ----
  const edited = app.userBubbles().filter({ hasText: 'never mind' });
  await edited.getByTestId('version-prev').click();
  await expect(app.userBubbles().filter({ hasText: 'make a plan' })).toBeVisible();
  await expect(memory.fact(ABANDONED)).toBeVisible();
  await expect(memory.fact(SHARED)).toBeVisible();
});
