import { expect, type Locator, type Page } from '@playwright/test';

/** The memory side panel: facts by category, pin / edit / forget / restore / add. */
export class MemoryPanelPage {
  constructor(readonly page: Page) {}

  get root(): Locator {
    return this.page.getByTestId('memory-panel');
  }
  get facts(): Locator {
    return this.root.getByTestId('fact');
  }

  async open(): Promise<void> {
    if ((await this.root.count()) === 0) await this.page.getByTestId('open-memory').click();
    await expect(this.root).toBeVisible();
  }

  fact(text: string | RegExp): Locator {
    return this.facts.filter({ hasText: text }).first();
  }

  async add(category: string, content: string): Promise<void> {
    await this.root.getByTestId('fact-add-category').selectOption(category);
    await this.root.getByTestId('fact-add-input').fill(content);
    await this.root.getByTestId('fact-add').click();
    await expect(this.fact(content)).toBeVisible();
  }

  async pin(text: string | RegExp): Promise<void> {
    await this.fact(text).getByTestId('fact-pin').click();
    await expect(this.fact(text)).toHaveAttribute('data-pinned', 'true');
  }

  async edit(text: string | RegExp, next: string): Promise<void> {
    await this.fact(text).getByTestId('fact-edit').click();
    const input = this.root.getByTestId('fact-edit-input');
    await input.fill(next);
    await this.root.getByTestId('fact-save').click();
    await expect(this.fact(next)).toBeVisible();
  }
}
