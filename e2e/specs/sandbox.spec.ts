import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionSummary } from '@threadline/protocol';
import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 21 (sandbox): Settings → Tool approval shows the mode in force (or why there is no
// sandbox), commands run in the sandbox without a card, a run outside it asks and says so, and
// the header's "allow network for commands" switch asks once. Both languages, both themes, 1280 and 640 px.

/** bwrap runs here (the same trial run the app makes): CI installs it with scripts/toolchain.sh. */
const bwrapWorks =
  spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-net', '--', 'true'], { stdio: 'ignore' })
    .status === 0;

const RULES = {
  rules: [
    {
      match: { lastUserIncludes: 'make a file', hasTools: true },
      reply: {
        toolCalls: [{ name: 'shell', arguments: { command: 'echo sandboxed-hello > made.txt && cat made.txt' } }],
      },
    },
    { match: { lastToolResultIncludes: 'sandboxed-hello' }, reply: { content: 'Made it.' } },
    {
      match: { lastUserIncludes: 'plant the hook', hasTools: true },
      reply: {
        toolCalls: [{ name: 'shell', arguments: { command: 'touch .git/hooks/pre-commit', sandbox: false } }],
      },
    },
    { match: { lastToolResultIncludes: 'denied' }, reply: { content: 'Not planted.' } },
  ],
};

test.describe('with bubblewrap', () => {
  test.skip(!bwrapWorks, 'bwrap is not usable on this machine: install bubblewrap (scripts/toolchain.sh does)');
  test.use({ fakeRules: RULES });

  test('sandboxed by default: no card, the network switch, a run outside asks, Settings says so', async ({
    page,
    stack,
  }) => {
    const app = new AppPage(page);
    await app.open(stack.url);
    await app.waitReady();
    await app.newSession();
    const [session] = await stack.rpc<SessionSummary[]>('sessions.list');
    const folder = session!.workingFolder;
    mkdirSync(join(folder, '.git', 'hooks'), { recursive: true });

    // A command runs in the sandbox without asking.
    await app.send('Please make a file');
    await app.waitIdle();
    const card = app.toolCards.last();
    await expect(card).toHaveAttribute('data-status', 'ok');
    await expect(card.getByRole('button', { name: 'Allow once', exact: true })).toHaveCount(0);
    expect(existsSync(join(folder, 'made.txt'))).toBe(true);

    // The network switch: off, asked once when turned on.
    const net = page.getByTestId('network-switch');
    await expect(net).toHaveAttribute('aria-pressed', 'false');
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await net.click();
      await expect(page.getByTestId('network-confirm')).toBeVisible();
      // It names the domains the switch opens (package registries by default).
      await expect(page.getByTestId('network-confirm')).toContainText('registry.npmjs.org');
      await app.shot('sandbox-network-confirm', lang, theme);
      await page.getByRole('button', { name: lang === 'en' ? 'Cancel' : '取消' }).click();
    }
    await app.setLook('en', 'light');
    await net.click();
    await page.getByTestId('network-confirm-yes').click();
    await expect(net).toHaveAttribute('aria-pressed', 'true');
    expect((await stack.rpc<{ network: boolean }>('sandbox.status', { sessionId: session!.id })).network).toBe(true);
    // Off and on again: asked once per session.
    await net.click();
    await expect(net).toHaveAttribute('aria-pressed', 'false');
    await net.click();
    await expect(page.getByTestId('network-confirm')).toHaveCount(0);
    await expect(net).toHaveAttribute('aria-pressed', 'true');
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await app.shot('sandbox-header', lang, theme);
    }

    // The model asks to leave the sandbox: the card says it runs outside; denied, nothing runs.
    await app.setLook('en', 'light');
    await app.send('Please plant the hook');
    const outside = app.toolCards.last();
    await expect(outside).toHaveAttribute('data-status', 'waiting');
    await expect(outside.getByTestId('tool-sandbox')).toContainText('OUTSIDE the sandbox');
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await expect(outside.getByTestId('tool-sandbox')).toBeVisible();
      await app.shot('sandbox-outside-card', lang, theme);
    }
    await page.setViewportSize({ width: 640, height: 800 });
    await app.shot('sandbox-outside-card-640', 'zh-CN', 'light');
    await app.setLook('en', 'dark');
    await app.shot('sandbox-outside-card-640', 'en', 'dark');
    await page.setViewportSize({ width: 1280, height: 800 });
    await app.setLook('en', 'light');
    await outside.getByRole('button', { name: 'Deny', exact: true }).click();
    await app.waitIdle();
    expect(existsSync(join(folder, '.git', 'hooks', 'pre-commit'))).toBe(false);

    // Settings → Tool approval: Sandboxed selected, bubblewrap in force.
    for (const width of [1280, 640]) {
      await page.setViewportSize({ width, height: 800 });
      for (const [lang, theme] of LOOKS) {
        await app.setLook(lang, theme);
        await app.openSettings('general');
        await expect(page.getByTestId('approval-select').locator('[data-value=sandboxed]')).toHaveAttribute(
          'aria-checked',
          'true',
        );
        await expect(page.getByTestId('sandbox-state')).toHaveAttribute('data-kind', 'bwrap');
        await app.shot(`sandbox-settings-${width}`, lang, theme);
        // What commands may read of the home folder, and where the network goes.
        await page.getByTestId('sandbox-network-domains').scrollIntoViewIfNeeded();
        await expect(page.getByTestId('sandbox-home-folders')).toBeVisible();
        await expect(page.getByTestId('sandbox-network-domains')).toHaveValue(/registry\.npmjs\.org/);
        await app.shot(`sandbox-settings-fields-${width}`, lang, theme);
        await app.closeSettings();
      }
    }
  });
});

test.describe('without a sandbox', () => {
  test.use({ fakeRules: RULES, serverEnv: { THREADLINE_SANDBOX: 'none' } });

  test('the sandboxed mode asks, the card and Settings say why, no network switch', async ({ page, stack }) => {
    const app = new AppPage(page);
    await app.open(stack.url);
    await app.waitReady();
    await app.newSession();
    await expect(page.getByTestId('folder-button')).toBeVisible();
    await expect(page.getByTestId('network-switch')).toHaveCount(0);
    await app.send('Please make a file');
    const card = app.toolCards.last();
    await expect(card).toHaveAttribute('data-status', 'waiting');
    await expect(card.getByTestId('tool-sandbox')).toContainText('Runs without a sandbox');
    for (const [lang, theme] of LOOKS.slice(0, 2)) {
      await app.setLook(lang, theme);
      await app.shot('sandbox-none-card', lang, theme);
    }
    await app.setLook('en', 'light');
    await card.getByRole('button', { name: 'Allow once', exact: true }).click();
    await app.waitIdle();
    await expect(card).toHaveAttribute('data-status', 'ok');
    for (const width of [1280, 640]) {
      await page.setViewportSize({ width, height: 800 });
      for (const [lang, theme] of LOOKS) {
        await app.setLook(lang, theme);
        await app.openSettings('general');
        await expect(page.getByTestId('sandbox-state')).toHaveAttribute('data-kind', 'none');
        await expect(page.getByTestId('sandbox-state')).toContainText(
          lang === 'en' ? 'In force: Ask' : '当前生效：询问',
        );
        await app.shot(`sandbox-none-settings-${width}`, lang, theme);
        await app.closeSettings();
      }
    }
  });
});
