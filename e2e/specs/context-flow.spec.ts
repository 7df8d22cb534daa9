import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '../fixtures';
import { AppPage, type Lang, type Theme } from '../pages/AppPage';
import { MemoryPanelPage } from '../pages/MemoryPanel';

// Issue 8 §7: a long session with big tool outputs crosses the threshold → a divider (the one
// element of the compaction) appears → expand the summary → undo → click compact → switch visibility off / brief /
// debug and see the chips change → a gate chip after a Desktop probe → pin and edit a fact.

const WINDOW = 6000;

test.use({
  // Commands run in a login shell: an empty home keeps this machine's login profile out of the run.
  serverEnv: { HOME: mkdtempSync(join(tmpdir(), 'tl-e2e-home-')) },
  fakeWindow: WINDOW,
  fakeRules: {
    rules: [
      {
        match: { lastUserIncludes: 'run step', hasTools: true },
        // A command that writes a file: memory learns it from the command, not from the reply's prose.
        reply: {
          toolCalls: [
            {
              name: 'shell',
              arguments: { command: 'mkdir -p build && seq 1 300 | tee build/report.txt && echo "exit code: 0"' },
            },
          ],
        },
      },
      {
        match: { lastUserIncludes: 'check the desktop', hasTools: true },
        reply: { toolCalls: [{ name: 'shell', arguments: { command: 'ls ~/Desktop' } }] },
      },
      {
        match: { lastToolResultIncludes: '300' },
        reply: { content: 'Step done: printed 300 numbers to build/report.txt.' },
      },
    ],
  },
});

async function looks(app: AppPage, name: string, combos: [Lang, Theme][]): Promise<void> {
  for (const [lang, theme] of combos) {
    await app.setLook(lang, theme);
    await app.shot(name, lang, theme);
  }
  await app.setLook('en', 'light');
}

test('auto-compaction, divider, undo, compact, visibility, gate chip, memory', async ({ page, stack }) => {
  const app = new AppPage(page);
  const memory = new MemoryPanelPage(page);

  // The engine under test: CFPM memory (deterministic, with the gate), tools run without asking.
  await stack.rpc('settings.set', {
    patch: {
      approvalPolicy: 'auto',
      compaction: { strategy: 'cfpm_memory_v1', autoThreshold: 0.8 },
      cfpm: { runtimeVisibility: 'brief', preToolGate: true },
    },
  });

  await app.open(stack.url);
  await app.waitReady();
  await app.newSession();

  // ---- a long session crosses the threshold ----
  let step = 0;
  while ((await app.dividers.count()) === 0 && step < 14) {
    step += 1;
    await app.send(`run step ${step}`);
    await app.waitIdle(45_000);
  }
  await expect(app.dividers.first()).toBeVisible();
  await expect(app.dividers.first()).toContainText('auto');
  // One element per compaction: no started/finished chips beside the divider.
  await expect(page.locator('[data-notice^=compaction]')).toHaveCount(0);
  await expect(app.dividers.first()).toHaveAttribute('data-active', 'true');
  await expect(app.dividers.first()).toContainText(/→/);
  // Hidden messages stay readable, marked as not sent to the model.
  await expect(page.getByTestId('hidden-tag').first()).toBeAttached();

  // ---- expand the summary (memory snapshot for CFPM) ----
  await app.dividers.first().scrollIntoViewIfNeeded();
  await app.dividers
    .first()
    .getByRole('button', { name: /Show summary/ })
    .click();
  await expect(page.getByTestId('compaction-summary')).toBeVisible();
  await looks(app, 'auto-compaction', [
    ['en', 'light'],
    ['en', 'dark'],
    ['zh-CN', 'light'],
    ['zh-CN', 'dark'],
  ]);

  // ---- the meter and its popover ----
  await app.meter.click();
  await expect(page.getByTestId('context-popover')).toBeVisible();
  await page.getByTestId('preview-compaction').click();
  await expect(page.getByTestId('compaction-preview')).toBeVisible();
  await app.shot('context-meter', 'en', 'light');
  await page.keyboard.press('Escape');

  // ---- undo the latest compaction ----
  await app.dividers.last().getByRole('button', { name: 'Undo' }).click();
  await expect(app.dividers.last()).toHaveAttribute('data-active', 'false');

  // ---- click compact ----
  await expect(app.compactButton).toBeEnabled();
  await app.compactButton.click();
  await app.waitIdle();
  await expect(app.dividers.filter({ hasText: 'manual' }).last()).toBeVisible();
  await expect(app.dividers.last()).toHaveAttribute('data-active', 'true');

  // ---- visibility off / brief / debug ----
  const runtimeChips = page.locator('[data-notice=runtime]');
  await app.setRuntimeVisibility('brief');
  // Brief shows a chip only for turns that changed memory: the first steps learned the paths.
  await app.messageList.evaluate((el) => {
    el.scrollTop = 0;
  });
  await expect(runtimeChips.first()).toBeAttached();
  await expect(runtimeChips.first()).toContainText('Memory updated');
  await expect(runtimeChips.first().getByRole('button')).toHaveCount(0);
  await app.setRuntimeVisibility('off');
  await expect(runtimeChips).toHaveCount(0);
  await app.setRuntimeVisibility('debug');
  await expect(runtimeChips.first()).toBeAttached();
  await runtimeChips.last().scrollIntoViewIfNeeded();
  await runtimeChips.last().getByRole('button', { name: 'Details' }).click();
  await expect(page.getByTestId('notice-details').first()).toBeVisible();
  await app.shot('chips-debug', 'en', 'light');
  await app.setRuntimeVisibility('brief');

  // ---- a trusted Desktop fact, then a Desktop probe: the gate rewrites it ----
  const desktop = join(stack.dataDir, 'home', 'Desktop');
  mkdirSync(desktop, { recursive: true });
  await memory.open();
  await memory.add('artifact', desktop);
  await memory.pin(desktop);
  await app.send('Please check the desktop');
  await app.waitIdle();
  const gate = page.locator('[data-notice=gate]').last();
  await expect(gate).toContainText('Reused the known Desktop path for shell');

  // ---- pin and edit a fact ----
  await memory.add('note', 'Report goes to build/report.txt');
  await memory.pin('Report goes to build/report.txt');
  await memory.edit('Report goes to build/report.txt', 'Report goes to build/final-report.txt');
  await looks(app, 'memory-gate', [
    ['en', 'light'],
    ['zh-CN', 'dark'],
  ]);
  // Settings covered the memory panel for a moment; closing it brought the panel back.
  await expect(memory.root).toBeVisible();
  await expect(memory.fact('build/final-report.txt')).toBeVisible();
});
