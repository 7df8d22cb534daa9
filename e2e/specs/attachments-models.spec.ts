import type { Page } from '@playwright/test';
import { test, expect, type Stack } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 26 §1–2: attachments (paste, pick) reach the provider; a model per session from the
// header's menu; a provider profile deleted with a confirmation naming its sessions.

interface Recorded {
  path: string;
  body?: { model?: string; messages?: { role: string; content: unknown }[]; tools?: unknown[] };
  images?: { mime: string; bytes: number }[];
}

const fakeBase = (stack: Stack): string => stack.fakeLlmUrl.replace(/\/v1$/, '');
async function fakeConfig(stack: Stack, config: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${fakeBase(stack)}/_fake/config`, { method: 'POST', body: JSON.stringify(config) });
  expect(res.status).toBe(200);
}
async function chatRequests(stack: Stack): Promise<Recorded[]> {
  const all = (await (await fetch(`${fakeBase(stack)}/_fake/requests`)).json()) as Recorded[];
  return all.filter((r) => r.path.startsWith('/v1/chat/completions'));
}

/** Pastes a 600×400 PNG drawn on a canvas into the composer, as a screenshot paste does. */
async function pasteImage(page: Page): Promise<void> {
  await page.getByTestId('composer-input').evaluate(async (el) => {
    const c = document.createElement('canvas');
    c.width = 600;
    c.height = 400;
    const g = c.getContext('2d')!;
    g.fillStyle = '#2b6cb0';
    g.fillRect(0, 0, 600, 400);
    g.fillStyle = '#fff';
    g.font = '48px sans-serif';
    g.fillText('Build failed', 120, 210);
    const blob = await new Promise<Blob>((r) => c.toBlob((b) => r(b!), 'image/png'));
    const dt = new DataTransfer();
    dt.items.add(new File([blob], 'screenshot.png', { type: 'image/png' }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });
}

// Eight looks per screen (two widths, two languages, two themes) take a while on a shared machine.
test.describe.configure({ timeout: 300_000 });

async function shots(app: AppPage, page: Page, name: string, before?: () => Promise<void>): Promise<void> {
  for (const width of [640, 1280]) {
    await page.setViewportSize({ width, height: 820 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      if (before) await before();
      await app.shot(`${name}-${width}`, lang, theme);
      await page.keyboard.press('Escape');
      if ((await page.getByTestId('settings-page').count()) > 0) await app.closeSettings();
    }
  }
  await page.setViewportSize({ width: 1360, height: 860 });
  await app.setLook('en', 'light');
}

test('a pasted image reaches the provider as an image part and shows as a thumbnail; a picked text file as text', async ({
  page,
  stack,
}) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();

  await pasteImage(page);
  await page.getByTestId('attach-input').setInputFiles({
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('The deploy key rotates on Fridays.\n'),
  });
  const pending = page.getByTestId('composer-attachment');
  await expect(pending).toHaveCount(2);
  await expect(pending.nth(0)).toHaveAttribute('data-status', 'ready');
  await expect(pending.nth(1)).toHaveAttribute('data-status', 'ready');
  await app.composer.fill('What went wrong here?');
  await shots(app, page, 'attach-composer');

  await app.composer.press('Enter');
  await app.waitIdle();
  await expect(pending).toHaveCount(0);
  // The turn's request (it offers tools), not the session title's that may follow it.
  const req = (await chatRequests(stack)).findLast((r) => (r.body?.tools?.length ?? 0) > 0)!;
  expect(req.images).toHaveLength(1);
  expect(req.images![0]!.mime).toBe('image/png');
  const user = req.body!.messages!.findLast((m) => m.role === 'user')!;
  const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
  expect(parts[0]!.type).toBe('text');
  expect(parts[0]!.text).toContain('What went wrong here?');
  expect(parts[0]!.text).toContain('<attachment name="notes.txt"');
  expect(parts[0]!.text).toContain('The deploy key rotates on Fridays.');
  expect(parts[1]!.image_url!.url).toMatch(/^data:image\/png;base64,/);

  // The bubble shows the text, a thumbnail and a file chip (not the file's block).
  const bubble = app.userBubbles().last();
  await expect(bubble).toContainText('What went wrong here?');
  await expect(bubble).not.toContainText('<attachment');
  // A real thumbnail (made when the image was fitted, stored beside it), not the full image scaled.
  const thumb = bubble.getByTestId('message-image').locator('img');
  await expect(thumb).toHaveAttribute('src', /^data:image\/(webp|jpeg);base64,/);
  expect(await thumb.evaluate((img: HTMLImageElement) => Math.max(img.naturalWidth, img.naturalHeight))).toBe(320);
  await expect(bubble.getByTestId('message-file')).toContainText('notes.txt');
  await shots(app, page, 'attach-sent');
  await bubble.getByTestId('message-image').click();
  const full = page.getByTestId('image-viewer').locator('img');
  await expect(full).toBeVisible();
  await expect(full).toHaveAttribute('src', /^data:image\/png;base64,/);
  expect(await full.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(600);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('image-viewer')).toHaveCount(0);
  // By keyboard: Enter on the thumbnail opens it, Escape closes it, focus is back on the thumbnail.
  await bubble.getByTestId('message-image').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('image-viewer')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('image-viewer')).toHaveCount(0);
  await expect(bubble.getByTestId('message-image')).toBeFocused();
  await shots(app, page, 'attach-viewer', async () => {
    await page.getByTestId('message-image').last().click();
    await expect(page.getByTestId('image-viewer')).toBeVisible();
  });
});

test("the header's model menu changes the model of that session's next request only", async ({ page, stack }) => {
  await fakeConfig(stack, { models: ['fake-model', 'vision-pro', 'gpt-4o'] });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await app.send('first session');
  await app.waitIdle();
  expect((await chatRequests(stack)).at(-1)!.body!.model).toBe('fake-model');

  await page.getByTestId('model-switch').click();
  await expect(page.getByTestId('model-option').filter({ hasText: 'vision-pro' })).toBeVisible();
  await page.getByTestId('model-option').filter({ hasText: 'vision-pro' }).click();
  await expect(page.getByTestId('model-switch')).toContainText('vision-pro');
  await app.send('now on another model');
  await app.waitIdle();
  expect((await chatRequests(stack)).at(-1)!.body!.model).toBe('vision-pro');

  // A typed model works too.
  await page.getByTestId('model-switch').click();
  await page.getByTestId('model-typed').fill('typed-model');
  await page.getByTestId('model-typed').press('Enter');
  await expect(page.getByTestId('model-switch')).toContainText('typed-model');

  await app.newSession();
  await expect(page.getByTestId('model-switch')).toContainText('fake-model');
  await app.send('second session');
  await app.waitIdle();
  expect((await chatRequests(stack)).at(-1)!.body!.model).toBe('fake-model');

  await shots(app, page, 'model-menu', async () => {
    await page.getByTestId('model-switch').click();
    await expect(page.getByTestId('model-menu')).toBeVisible();
    await expect(page.getByTestId('model-option').filter({ hasText: 'gpt-4o' })).toBeVisible();
  });
});

test('a provider profile is deleted after a confirmation naming the sessions that use it', async ({ page, stack }) => {
  const second = await stack.rpc<{ id: string }>('providers.upsert', {
    preset: 'custom',
    name: 'Second provider',
    baseUrl: stack.fakeLlmUrl,
    model: 'second-model',
    contextWindow: 32_000,
  });
  const session = await stack.rpc<{ id: string }>('sessions.create', { title: 'Uses the second provider' });
  await stack.rpc('sessions.setModel', { id: session.id, profileId: second.id, model: null });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.session('Uses the second provider').click();
  await expect(page.getByTestId('model-switch')).toContainText('second-model');

  await app.openSettings('providers');
  await expect(page.getByTestId('provider-item')).toHaveCount(2);
  await app.closeSettings();
  const open = async () => {
    await app.openSettings('providers');
    await page
      .getByTestId('provider-item')
      .filter({ hasText: 'Second provider' })
      .getByTestId('delete-profile')
      .click();
    await expect(page.getByTestId('delete-profile-sessions')).toContainText('Uses the second provider');
  };
  await shots(app, page, 'profile-delete', open);
  await open();
  await page.getByTestId('delete-profile-confirm').click();
  await expect(page.getByTestId('delete-profile-dialog')).toHaveCount(0);
  await expect(page.getByTestId('provider-item')).toHaveCount(1);
  await app.closeSettings();
  // The session falls back to the active profile.
  await expect(page.getByTestId('model-switch')).toContainText('fake-model');
  await app.send('still answered?');
  await app.waitIdle();
  expect((await chatRequests(stack)).at(-1)!.body!.model).toBe('fake-model');
});

test('a model that cannot read images says so in a sentence, not with the provider error', async ({ page, stack }) => {
  await fakeConfig(stack, { models: ['fake-model', 'text-only'], noVisionModels: ['text-only'] });
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await page.getByTestId('model-switch').click();
  await page.getByTestId('model-option').filter({ hasText: 'text-only' }).click();
  await expect(page.getByTestId('model-switch')).toContainText('text-only');
  await pasteImage(page);
  await expect(page.getByTestId('composer-attachment')).toHaveAttribute('data-status', 'ready');
  await app.composer.fill('what does it say?');
  await app.composer.press('Enter');
  await app.waitIdle();
  const error = page.getByTestId('inline-error');
  await expect(error).toContainText('text-only cannot read images');
  await expect(error).not.toContainText('image_url');
  expect((await chatRequests(stack)).at(-1)!.body!.model).toBe('text-only');
  await shots(app, page, 'no-vision');
});
