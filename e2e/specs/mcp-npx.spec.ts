import { test, expect } from '../fixtures';
import { AppPage } from '../pages/AppPage';

// Issue 37 §2: a real MCP server from the npm registry, started with npx the way a user adds one:
// the start says it is downloading the package, and when the server exits with an error (here
// server-filesystem, given a folder that does not exist) the page quotes what it wrote on stderr.

test.describe.configure({ timeout: 300_000 });

test('an npx server that exits with an error: its stages, then its own words in the page', async ({ page, stack }) => {
  const app = new AppPage(page);
  await app.open(stack.url);
  await app.waitReady();
  await app.openSettings('tools');
  await page.getByTestId('mcp-add').click();
  await page.getByTestId('mcp-name').fill('files');
  await page.getByTestId('mcp-command').fill('npx');
  await page
    .getByTestId('mcp-args')
    .fill('-y\n@modelcontextprotocol/server-filesystem\n/no/such/folder-for-threadline');
  await page.getByTestId('mcp-save').click();
  const row = page.locator('[data-testid=mcp-item][data-name=files]');
  const status = row.getByTestId('mcp-status');
  await expect(status).toHaveAttribute('data-status', 'stopped');
  await row.getByTestId('mcp-restart').click();
  // Its own package cache is empty: npx downloads the package first, and the page says so.
  await expect(status).toHaveAttribute('data-stage', 'downloading', { timeout: 120_000 });
  await expect(status).toHaveText('Downloading the package…');
  await app.shot('mcp-npx-downloading', 'en', 'light');
  await expect(status).toHaveAttribute('data-status', 'error', { timeout: 180_000 });
  const error = row.getByTestId('mcp-error');
  await expect(error).toContainText('The server "files" exited before it answered.');
  await expect(error).toContainText('None of the specified directories are accessible');
  await expect(error).not.toContainText('npm http');
  await expect(error).not.toContainText('npm notice');
  await error.scrollIntoViewIfNeeded();
  await app.shot('mcp-npx-error', 'en', 'light');
  await app.closeSettings();
  await app.setLook('zh-CN', 'dark');
  await app.openSettings('tools');
  await expect(row.getByTestId('mcp-error')).toContainText('None of the specified directories are accessible');
  await app.shot('mcp-npx-error', 'zh-CN', 'dark');
});
