import { expect, type Locator, type Page } from '@playwright/test';
import { resolve } from 'node:path';
import { repoRoot } from '../support/processes';

export type Lang = 'en' | 'zh-CN';
export type Theme = 'light' | 'dark';

/** The four looks a screenshot pass walks through; the first two (one per language) for a short pass. */
export const LOOKS: readonly (readonly [Lang, Theme])[] = [
  ['en', 'light'],
  ['zh-CN', 'dark'],
  ['en', 'dark'],
  ['zh-CN', 'light'],
];

/** The Threadline window: sidebar, chat, composer, settings and memory panel. */
export class AppPage {
  constructor(readonly page: Page) {}

  // ---- regions ----
  get composer(): Locator {
    return this.page.getByTestId('composer-input');
  }
  get sendButton(): Locator {
    return this.page.getByTestId('send-button');
  }
  get stopButton(): Locator {
    return this.page.getByTestId('stop-button');
  }
  get messageList(): Locator {
    return this.page.getByTestId('message-list');
  }
  get sessions(): Locator {
    return this.page.getByTestId('session-item');
  }
  get toolCards(): Locator {
    return this.page.getByTestId('tool-card');
  }
  get chips(): Locator {
    return this.page.getByTestId('notice-chip');
  }
  get dividers(): Locator {
    return this.page.getByTestId('compaction-divider');
  }
  get meter(): Locator {
    return this.page.getByTestId('context-meter');
  }
  get compactButton(): Locator {
    return this.page.getByTestId('compact-button');
  }
  userBubbles(): Locator {
    return this.page.getByTestId('msg-user');
  }
  assistantMessages(): Locator {
    return this.page.getByTestId('msg-assistant');
  }

  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await expect(this.page.locator('.app, [data-testid=setup-screen]')).toBeVisible();
  }

  async waitReady(): Promise<void> {
    await expect(this.page.locator('.app')).toBeVisible();
  }

  // ---- sessions ----
  async newSession(): Promise<void> {
    const before = await this.sessions.count();
    if (!(await this.page.getByTestId('new-session').isVisible()))
      await this.page.getByTestId('sidebar-toggle').click();
    await this.page.getByTestId('new-session').click();
    await expect(this.sessions).toHaveCount(before + 1);
    await expect(this.composer).toBeFocused();
  }

  session(title: string | RegExp): Locator {
    return this.sessions.filter({ hasText: title });
  }

  async renameSession(from: string | RegExp, to: string): Promise<void> {
    const item = this.session(from).first();
    await item.hover();
    await item.getByTestId('session-rename').click();
    const input = this.page.getByTestId('session-rename-input');
    await input.fill(to);
    await input.press('Enter');
    await expect(this.session(to)).toHaveCount(1);
  }

  async deleteSession(title: string | RegExp): Promise<void> {
    const item = this.session(title).first();
    await item.hover();
    await item.getByTestId('session-delete').click();
    await expect(this.page.getByTestId('confirm-delete')).toBeVisible();
    await this.page.getByTestId('confirm-delete-button').click();
    await expect(this.session(title)).toHaveCount(0);
  }

  // ---- chat ----
  async send(text: string): Promise<void> {
    await this.composer.fill(text);
    await this.composer.press('Enter');
    await expect(this.userBubbles().filter({ hasText: text }).last()).toBeVisible();
  }

  /** Waits until no reply is running (the Send button is back). */
  async waitIdle(timeout = 30_000): Promise<void> {
    await expect(this.stopButton).toHaveCount(0, { timeout });
    await expect(this.sendButton).toBeVisible({ timeout });
  }

  async scrollToBottom(): Promise<void> {
    await this.messageList.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
  }

  // ---- settings ----
  async openSettings(
    tab: 'general' | 'providers' | 'context' | 'tools' | 'rules' | 'helpers' | 'usage' = 'general',
  ): Promise<void> {
    // In a narrow window the sidebar (and its Settings button) is shown on request.
    if (!(await this.page.getByTestId('open-settings').isVisible()))
      await this.page.getByTestId('sidebar-toggle').click();
    await this.page.getByTestId('open-settings').click();
    await expect(this.page.getByTestId('settings-page')).toBeVisible();
    await this.page.getByTestId(`settings-tab-${tab}`).click();
  }

  async closeSettings(): Promise<void> {
    await this.page.getByTestId('close-settings').click();
    await expect(this.page.getByTestId('settings-page')).toHaveCount(0);
  }

  async setLanguage(lang: Lang): Promise<void> {
    await this.page.getByTestId('language-select').first().selectOption(lang);
    await expect(this.page.locator('html')).toHaveAttribute('lang', lang);
  }

  async setTheme(theme: Theme): Promise<void> {
    await this.page.getByTestId('theme-select').locator(`[data-value=${theme}]`).click();
    await expect(this.page.locator('html')).toHaveAttribute('data-theme', theme);
  }

  /** Sets language and theme through settings and comes back to the chat. */
  async setLook(lang: Lang, theme: Theme): Promise<void> {
    await this.openSettings('general');
    await this.setLanguage(lang);
    await this.setTheme(theme);
    await this.closeSettings();
  }

  async setRuntimeVisibility(level: 'off' | 'brief' | 'debug'): Promise<void> {
    await this.openSettings('context');
    await this.page.getByTestId('runtime-visibility').locator(`[data-value=${level}]`).click();
    await expect(this.page.getByTestId('runtime-visibility').locator(`[data-value=${level}]`)).toHaveAttribute(
      'aria-checked',
      'true',
    );
    await this.closeSettings();
  }

  // ---- screenshots ----
  async shot(name: string, lang: Lang, theme: Theme): Promise<string> {
    const file = resolve(repoRoot, 'e2e', 'screenshots', `${name}-${lang}-${theme}.png`);
    // Stable screenshots: transitions and animations run to their end, the caret is hidden.
    await this.page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
    return file;
  }
}
