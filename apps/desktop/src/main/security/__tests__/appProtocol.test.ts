import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { contentTypeFor, resolveAppAsset } from '../appProtocol';

const root = '/opt/threadline/out/renderer';

describe('resolveAppAsset', () => {
  it('maps app:// paths into the renderer folder', () => {
    expect(resolveAppAsset(root, 'app://threadline/index.html')).toBe(join(root, 'index.html'));
    expect(resolveAppAsset(root, 'app://threadline/')).toBe(join(root, 'index.html'));
    expect(resolveAppAsset(root, 'app://threadline/assets/index-abc.js?v=1#x')).toBe(join(root, 'assets/index-abc.js'));
    expect(resolveAppAsset(root, 'app://threadline/assets/a%20b.css')).toBe(join(root, 'assets/a b.css'));
  });

  it('never leaves the renderer folder', () => {
    for (const url of [
      'app://threadline/../../../etc/passwd',
      'app://threadline/%2e%2e/%2e%2e/etc/passwd',
      'app://threadline/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      'app://threadline/..%5c..%5cwindows',
      'app://threadline/a%00.html',
      'app://threadline/%E0%A4%A',
    ]) {
      const file = resolveAppAsset(root, url);
      expect(file === null || file.startsWith(root + '/'), `${url} -> ${file}`).toBe(true);
    }
    expect(resolveAppAsset(root, 'app://threadline/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd')).toBeNull();
    expect(resolveAppAsset(root, 'app://threadline/a%00.html')).toBeNull();
  });

  it('serves only the threadline host of the app scheme', () => {
    expect(resolveAppAsset(root, 'app://other/index.html')).toBeNull();
    expect(resolveAppAsset(root, 'file:///opt/threadline/out/renderer/index.html')).toBeNull();
    expect(resolveAppAsset(root, 'https://threadline/index.html')).toBeNull();
  });
});

describe('contentTypeFor', () => {
  it('knows the renderer asset types', () => {
    expect(contentTypeFor('/x/index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeFor('/x/a.JS')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeFor('/x/a.woff2')).toBe('font/woff2');
    expect(contentTypeFor('/x/blob')).toBe('application/octet-stream');
  });
});

describe('serveAppAsset', () => {
  it('serves real files with type, CSP and nosniff; 404 otherwise', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
    const { readFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { serveAppAsset } = await import('../appProtocol');
    const dir = mkdtempSync(join(tmpdir(), 'tl-renderer-'));
    try {
      const renderer = join(dir, 'renderer');
      mkdirSync(join(renderer, 'assets'), { recursive: true });
      writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Threadline</title>');
      writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
      writeFileSync(join(dir, 'secret.txt'), 'sk-123');
      const read = (f: string) => readFile(f);

      const html = await serveAppAsset(renderer, 'app://threadline/', "default-src 'self'", read);
      expect(html.status).toBe(200);
      expect(Buffer.from(html.body).toString()).toContain('<title>Threadline</title>');
      expect(html.headers).toMatchObject({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': "default-src 'self'",
        'X-Content-Type-Options': 'nosniff',
      });
      const js = await serveAppAsset(renderer, 'app://threadline/assets/app.js', 'x', read);
      expect(js.headers['Content-Type']).toBe('text/javascript; charset=utf-8');

      expect((await serveAppAsset(renderer, 'app://threadline/missing.js', 'x', read)).status).toBe(404);
      const escape = await serveAppAsset(renderer, 'app://threadline/%2e%2e%2fsecret.txt', 'x', read);
      expect(escape.status).toBe(404);
      expect(String(escape.body)).not.toContain('sk-123');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
