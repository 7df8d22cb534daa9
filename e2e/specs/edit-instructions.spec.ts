import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, expect } from '../fixtures';
import { AppPage, LOOKS } from '../pages/AppPage';

// Issue 23: an edit_file call asks with its diff before it is applied and shows the diff it made;
// the project's AGENTS.md named by a chip in the header that opens its text; the session's own
// system prompt edited from the header; custom instructions in Settings. Both languages and
// themes, 1280 and 640 px wide.

test.use({
  fakeRules: {
    rules: [
      {
        match: { lastUserIncludes: 'fix the greeting', hasTools: true },
        reply: {
          toolCalls: [
            {
              name: 'edit_file',
              arguments: { path: 'greeting.ts', old_string: "'Hello wrold'", new_string: "'Hello, world'" },
            },
          ],
        },
      },
      { match: { lastToolResultIncludes: 'replaced 1 occurrence' }, reply: { content: 'Fixed the typo.' } },
    ],
  },
});

const WIDTHS = [1280, 640] as const;

test('a diff on the approval card and the tool card; the instructions chip and session prompt', async ({
  page,
  stack,
}) => {
  const root = join(stack.dataDir, '..');
  const work = join(root, 'work', 'greeter');
  mkdirSync(join(work, '.git'), { recursive: true });
  const source = [
    'export function greet(name: string): string {',
    "  const base = 'Hello wrold';",
    '  return `${base}, ${name}!`;',
    '}',
    '',
  ].join('\n');
  writeFileSync(join(work, 'greeting.ts'), source);
  writeFileSync(
    join(work, 'AGENTS.md'),
    '# Greeter\n\n- Run `pnpm test` before you say a change is done.\n- Keep functions pure.\n',
  );
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();
  await page.getByTestId('folder-button').click();
  await page.getByTestId('folder-input').fill(work);
  await page.getByTestId('folder-save').click();
  await expect(page.getByTestId('folder-button')).toContainText(work);

  // The chip names the file in force and opens its text.
  const chip = page.getByTestId('instructions-chip');
  await expect(chip).toContainText('AGENTS.md');
  // At 640 px the header keeps every button on screen (the chip gives way to an icon).
  await page.setViewportSize({ width: 640, height: 760 });
  await expect(page.getByTestId('open-memory')).toBeInViewport({ ratio: 1 });
  await expect(chip).toBeInViewport({ ratio: 1 });
  // Settings is behind the dialog: the look is set first, then the dialog opened for each shot.
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 760 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await chip.click();
      await expect(page.getByTestId('instructions-text')).toContainText('Keep functions pure.');
      await app.shot(`instructions-dialog-${width}`, lang, theme);
      await page.keyboard.press('Escape');
      await expect(page.getByTestId('instructions-dialog')).toHaveCount(0);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await app.setLook('en', 'light');

  // The session's own prompt, edited from the header.
  await page.getByTestId('session-prompt-button').click();
  await page.getByTestId('session-prompt-input').fill('Answer in one short paragraph.');
  await app.shot('session-prompt-dialog', 'en', 'light');
  await page.getByTestId('session-prompt-save').click();
  await expect(page.getByTestId('session-prompt-dialog')).toHaveCount(0);
  await expect(page.getByTestId('session-prompt-button')).toHaveClass(/is-on/);
  const [session] = await stack.rpc<{ id: string }[]>('sessions.list');
  expect((await stack.rpc<{ session: string | null }>('instructions.get', { sessionId: session!.id })).session).toBe(
    'Answer in one short paragraph.',
  );

  // Inside the folder a write runs on its own; with a rule that edit_file asks in this session (as a
  // protected path or a path outside the folder would), the diff is on the card before it runs.
  await stack.rpc('rules.save', {
    decision: 'ask',
    match: { kind: 'path', tool: 'edit_file', scope: { kind: 'any' } },
    scope: { kind: 'session', sessionId: session!.id },
  });
  await app.send('Please fix the greeting typo');
  const card = app.toolCards.last();
  await expect(card).toHaveAttribute('data-status', 'waiting');
  await expect(card.getByTestId('tool-diff').locator('.diff-del')).toHaveText(["-  const base = 'Hello wrold';"]);
  await expect(card.getByTestId('tool-diff').locator('.diff-add')).toHaveText(["+  const base = 'Hello, world';"]);
  expect(readFileSync(join(work, 'greeting.ts'), 'utf8')).toBe(source);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await card.getByTestId('tool-diff').scrollIntoViewIfNeeded();
      await app.shot(`edit-approval-diff-${width}`, lang, theme);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await app.setLook('en', 'light');
  await card.getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(card).toHaveAttribute('data-status', 'ok');
  await app.waitIdle();
  expect(readFileSync(join(work, 'greeting.ts'), 'utf8')).toBe(source.replace('Hello wrold', 'Hello, world'));

  // After it ran, the card shows the diff it made.
  const done = app.toolCards.last();
  if ((await done.getByTestId('tool-diff').count()) === 0) await done.locator('.tool-head').click();
  await expect(done.getByTestId('tool-diff').locator('.diff-add')).toHaveText(["+  const base = 'Hello, world';"]);
  // With the rules chip too, every header button stays on screen at 640 px.
  await page.setViewportSize({ width: 640, height: 800 });
  await expect(page.getByTestId('open-memory')).toBeInViewport({ ratio: 1 });
  await expect(page.getByTestId('session-prompt-button')).toBeInViewport({ ratio: 1 });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    for (const [lang, theme] of LOOKS) {
      await app.setLook(lang, theme);
      await done.getByTestId('tool-diff').scrollIntoViewIfNeeded();
      await app.shot(`edit-result-diff-${width}`, lang, theme);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // The meter shows the instructions (AGENTS.md and the session prompt) as their own share.
  await app.setLook('en', 'light');
  await app.meter.click();
  await expect(page.getByTestId('meter-part-instructions')).toBeVisible();
  await app.shot('meter-instructions', 'en', 'light');
  await app.meter.click();
  await expect(page.getByTestId('context-popover')).toHaveCount(0);

  // Settings: custom instructions for every session.
  for (const [lang, theme] of LOOKS.slice(0, 2)) {
    await app.setLook(lang, theme);
    await app.openSettings('general');
    const field = page.getByTestId('custom-instructions');
    await field.fill('Use British spelling.');
    await field.blur();
    await field.scrollIntoViewIfNeeded();
    await app.shot('custom-instructions-settings', lang, theme);
    await app.closeSettings();
  }
  expect((await stack.rpc<{ agent: { customInstructions: string } }>('settings.get')).agent.customInstructions).toBe(
    'Use British spelling.',
  );
});
