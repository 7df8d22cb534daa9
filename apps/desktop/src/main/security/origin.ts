/**
 * Where the renderer comes from, and who counts as "the app". Every sender check, navigation
 * decision and CSP decision compares against this one value.
 *
 * Packaged builds and `electron-vite preview` load the built renderer through the privileged
 * `app://threadline/` scheme (a real origin, unlike file://, so the sender check is an exact
 * origin comparison and file:// needs no extra privileges). `electron-vite dev` sets
 * ELECTRON_RENDERER_URL to its dev server; that override is ignored in a packaged app so an
 * environment variable can never point the bridge at a foreign page.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'threadline';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

export interface RendererLocation {
  /** The URL the window loads. */
  entryUrl: string;
  /** scheme://host[:port] of the app's own pages. */
  origin: string;
  dev: boolean;
}

export function resolveRendererLocation(
  env: { ELECTRON_RENDERER_URL?: string },
  isPackaged: boolean,
): RendererLocation {
  const devUrl = env.ELECTRON_RENDERER_URL;
  if (!isPackaged && devUrl) {
    const origin = originOf(devUrl);
    const parsed = safeUrl(devUrl);
    // The dev server must be local plain http; anything else is ignored.
    if (origin && parsed && parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) {
      return { entryUrl: devUrl, origin, dev: true };
    }
  }
  return { entryUrl: `${APP_ORIGIN}/index.html`, origin: APP_ORIGIN, dev: false };
}

/**
 * `scheme://host[:port]` of a URL, or null when it has none. Node's URL reports origin "null"
 * for custom schemes, so build it from protocol and host instead.
 */
export function originOf(url: string): string | null {
  const parsed = safeUrl(url);
  if (!parsed || !parsed.host) return null;
  return `${parsed.protocol}//${parsed.host}`.toLowerCase();
}

/** True when `url` is one of the app's own pages. */
export function isAppUrl(url: string, location: Pick<RendererLocation, 'origin'>): boolean {
  const origin = originOf(url);
  return origin !== null && origin === location.origin.toLowerCase();
}

export interface SenderFrameInfo {
  url: string;
  /** True when the frame is the top-level frame of its page (not an iframe). */
  isMainFrame: boolean;
}

/**
 * The IPC sender check (GitHub Desktop's isTrustedIPCSender, Electron security checklist #17):
 * only the top frame of one of the app's own pages may call the runtime.
 */
export function isTrustedSender(
  frame: SenderFrameInfo | null | undefined,
  location: Pick<RendererLocation, 'origin'>,
): boolean {
  if (!frame || !frame.isMainFrame) return false;
  return isAppUrl(frame.url, location);
}

export function safeUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}
