import { test, expect, type Stack } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 37 §3, one test per defect found in the first hour: a refused setting never traps the
// keyboard and is never dropped silently; every message of the provider form is the right one;
// the models a connection test listed become a picker; profiles get names of their own; saving a
// provider never changes the model of a session under way.

test.use({ actionTimeout: 20_000 });

const fakeBase = (stack: Stack): string => stack.fakeLlmUrl.replace(/\/v1$/, '');

test('a refused setting: Tab and a click leave it, it stays said, Esc in it puts the setting back', async ({
  page,
  stack,
}) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.openSettings('context');
  const threshold = page.getByTestId('threshold-input');
  const before = await threshold.inputValue();
  await threshold.fill('150');
  await page.keyboard.press('Tab');
  // The keyboard went on; the value and its sentence stayed.
  await expect(threshold).not.toBeFocused();
  await expect(page.getByTestId('threshold-input-error')).toBeVisible();
  await expect(threshold).toHaveValue('150');
  // A click elsewhere goes where it was aimed.
  await page.getByTestId('tool-output-input').click();
  await expect(page.getByTestId('tool-output-input')).toBeFocused();
  await app.shot('forms-refused-setting', 'en', 'light');
  // Closing Settings (Esc, the close button) keeps it open on the refused field instead of
  // dropping what was typed.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('settings-page')).toBeVisible();
  await expect(threshold).toBeFocused();
  await page.getByTestId('close-settings').click();
  await expect(page.getByTestId('settings-page')).toBeVisible();
  await expect(threshold).toBeFocused();
  await expect(threshold).toHaveValue('150');
  // Esc in the field is the user putting the setting back; the next Esc closes Settings.
  await threshold.press('Escape');
  await expect(threshold).toHaveValue(before);
  await expect(page.getByTestId('threshold-input-error')).toHaveCount(0);
  await expect(page.getByTestId('settings-page')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('settings-page')).toHaveCount(0);
});

test('the provider form: the window’s own sentences, -5 kept as typed', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.openSettings('providers');
  await page.getByTestId('edit-profile').first().click();
  const windowField = page.getByTestId('provider-window');
  const error = page.getByTestId('field-error-contextWindow');
  for (const [typed, sentence] of [
    ['-5', 'The context window must be at least 1 token.'],
    ['1000000000', 'The context window can be at most 100,000,000 tokens.'],
    ['12.5', 'The context window must be a whole number of tokens, e.g. 128000.'],
  ] as const) {
    await windowField.fill(typed);
    await page.getByTestId('provider-save').click();
    await expect(error).toHaveText(sentence);
    await expect(windowField).toHaveValue(typed);
  }
  await windowField.fill('-5');
  await page.getByTestId('provider-save').click();
  await expect(error).toBeVisible();
  await app.shot('forms-provider-window', 'en', 'light');
});

test('the provider form: a missing-key verdict goes when a local server is picked', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.openSettings('providers');
  await page.getByTestId('add-provider').click();
  await page.getByTestId('preset-openai').click();
  await page.getByTestId('provider-save').click();
  const keyError = page.getByTestId('field-error-apiKey');
  await expect(keyError).toHaveText('This provider needs an API key: paste it here.');
  await page.getByTestId('provider-test').click();
  await expect(page.getByTestId('provider-test-result')).toContainText('needs an API key');
  await page.getByTestId('preset-ollama').click();
  await expect(page.getByTestId('provider-key')).toHaveAttribute('placeholder', 'Optional for local servers');
  await expect(keyError).toHaveCount(0);
  await expect(page.getByTestId('provider-test-result')).toHaveCount(0);
  await expect(page.getByTestId('save-check-failed')).toHaveCount(0);
  await app.shot('forms-provider-local', 'en', 'light');
});

test('the provider form: the models a connection test listed can be picked', async ({ page, stack }) => {
  const res = await fetch(`${fakeBase(stack)}/_fake/config`, {
    method: 'POST',
    body: JSON.stringify({ models: ['fake-model', 'fake-large', 'fake-small'] }),
  });
  expect(res.status).toBe(200);
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.openSettings('providers');
  await page.getByTestId('edit-profile').first().click();
  await expect(page.getByTestId('provider-model-pick')).toHaveCount(0);
  await page.getByTestId('provider-test').click();
  await expect(page.getByTestId('provider-test-result')).toContainText('Connected');
  const pick = page.getByTestId('provider-model-pick');
  await expect(pick.locator('option:not([value=""])')).toHaveText(['fake-large', 'fake-model', 'fake-small']);
  await pick.selectOption('fake-small');
  await expect(page.getByTestId('provider-model')).toHaveValue('fake-small');
  await app.shot('forms-provider-models', 'en', 'light');
  // Another address: the list was not its.
  await page.getByTestId('provider-url').fill('http://127.0.0.1:9/v1');
  await expect(pick).toHaveCount(0);
});

test('profiles get names of their own, and saving one never switches a session under way', async ({ page, stack }) => {
  const res = await fetch(`${fakeBase(stack)}/_fake/config`, {
    method: 'POST',
    body: JSON.stringify({ models: ['fake-model', 'fake-small'] }),
  });
  expect(res.status).toBe(200);
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await app.send('hello there');
  await app.waitIdle();
  await expect(page.getByTestId('model-switch')).toContainText('fake-model');

  // Two custom profiles: the second is offered "Custom 2"; typing the first's name is refused.
  const addCustom = async (model: string) => {
    await page.getByTestId('add-provider').click();
    await page.getByTestId('preset-custom').click();
    await page.getByTestId('provider-url').fill(stack.fakeLlmUrl);
    await page.getByTestId('provider-model').fill(model);
  };
  await app.openSettings('providers');
  await addCustom('fake-model');
  await expect(page.getByTestId('provider-name')).toHaveValue('Custom');
  await page.getByTestId('provider-save').click();
  await expect(page.getByTestId('provider-item')).toHaveCount(2);
  await addCustom('fake-small');
  await expect(page.getByTestId('provider-name')).toHaveValue('Custom 2');
  await page.getByTestId('provider-name').fill('custom');
  await page.getByTestId('provider-save').click();
  await expect(page.getByTestId('field-error-name')).toHaveText(
    'Another provider profile has this name; choose one of its own.',
  );
  await app.shot('forms-provider-name', 'en', 'light');
  await page.getByTestId('provider-name').fill('Custom 2');
  await page.getByTestId('provider-save').click();
  await expect(page.getByTestId('provider-item')).toHaveCount(3);
  const names = await page.locator('.provider-name').allTextContents();
  expect(names.map((n) => n.replace(/Default$/, ''))).toEqual(expect.arrayContaining(['Custom', 'Custom 2']));
  await app.closeSettings();

  // The session under way kept its profile and model; a new session takes the new default.
  await expect(page.getByTestId('model-switch')).toContainText('fake-model');
  await app.send('still you?');
  await app.waitIdle();
  const requests = (await (await fetch(`${fakeBase(stack)}/_fake/requests`)).json()) as {
    path: string;
    body?: { model?: string };
  }[];
  const chats = requests.filter((r) => r.path.startsWith('/v1/chat/completions'));
  expect(chats.at(-1)?.body?.model).toBe('fake-model');
  await app.newSession();
  await expect(page.getByTestId('model-switch')).toContainText('fake-small');
});
