import { expect, type Page } from '@playwright/test';

/** The first-run screen: preset, endpoint, model, window, key, test connection. */
export class SetupPage {
  constructor(readonly page: Page) {}

  async expectVisible(): Promise<void> {
    await expect(this.page.getByTestId('setup-screen')).toBeVisible();
  }

  async fill(opts: {
    preset: string;
    baseUrl: string;
    model: string;
    contextWindow: number;
    apiKey?: string;
  }): Promise<void> {
    await this.page.getByTestId(`preset-${opts.preset}`).click();
    await this.page.getByTestId('provider-url').fill(opts.baseUrl);
    await this.page.getByTestId('provider-model').fill(opts.model);
    await this.page.getByTestId('provider-window').fill(String(opts.contextWindow));
    if (opts.apiKey !== undefined) await this.page.getByTestId('provider-key').fill(opts.apiKey);
  }

  async testConnection(): Promise<string> {
    await this.page.getByTestId('provider-test').click();
    const result = this.page.getByTestId('provider-test-result');
    await expect(result).toBeVisible();
    return (await result.textContent()) ?? '';
  }

  async saveAndStart(): Promise<void> {
    await this.page.getByTestId('provider-save').click();
    await expect(this.page.getByTestId('setup-screen')).toHaveCount(0);
  }
}
