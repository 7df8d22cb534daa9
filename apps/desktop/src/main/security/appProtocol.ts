import { extname, resolve, sep } from 'node:path';
import { APP_HOST, APP_SCHEME, safeUrl } from './origin';

/**
 * The `app://threadline/…` scheme serves the built renderer (out/renderer) and nothing else.
 * These functions are the whole policy: which file a request maps to (never outside the
 * renderer folder) and what content type it gets.
 */
export function resolveAppAsset(rendererDir: string, requestUrl: string): string | null {
  const url = safeUrl(requestUrl);
  if (!url || url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return null;
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (pathname.includes('\0') || pathname.includes('\\')) return null;
  if (pathname === '/' || pathname === '') pathname = '/index.html';
  const root = resolve(rendererDir);
  const file = resolve(root, `.${pathname}`);
  // A decoded "%2e%2e" can still climb out after decoding: check the resolved path.
  if (file !== root && !file.startsWith(root + sep)) return null;
  return file;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeFor(file: string): string {
  return MIME[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

export interface AssetResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string;
}

/**
 * What `protocol.handle('app', …)` answers for one request: the file with its type, the CSP on
 * every response (documents and workers read it), and nosniff; 404 for anything outside the
 * renderer folder or missing.
 */
export async function serveAppAsset(
  rendererDir: string,
  requestUrl: string,
  csp: string,
  readFile: (file: string) => Promise<Uint8Array>,
): Promise<AssetResponse> {
  const base = { 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' };
  const file = resolveAppAsset(rendererDir, requestUrl);
  if (!file)
    return { status: 404, headers: { ...base, 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' };
  try {
    const body = await readFile(file);
    return { status: 200, headers: { ...base, 'Content-Type': contentTypeFor(file) }, body };
  } catch {
    return { status: 404, headers: { ...base, 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' };
  }
}
