import { isAppUrl, safeUrl, type RendererLocation } from './origin';

/**
 * In-window navigation: the app is a single page, so a navigation is only allowed when it
 * stays on the app's own entry page (a reload or a hash change). Everything else is denied,
 * including other pages of the same origin, file:// and javascript: URLs.
 */
export function shouldAllowNavigation(url: string, location: Pick<RendererLocation, 'origin' | 'entryUrl'>): boolean {
  if (!isAppUrl(url, location)) return false;
  const target = safeUrl(url);
  const entry = safeUrl(location.entryUrl);
  if (!target || !entry) return false;
  return normalizePath(target.pathname) === normalizePath(entry.pathname);
}

/** Links the user clicks may leave the app only as http(s), never file:, smb:, custom schemes… */
export function openExternalAllowed(url: string): boolean {
  const parsed = safeUrl(url);
  if (!parsed) return false;
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  // user:pass@host links are a classic way to disguise where a link goes.
  if (parsed.username || parsed.password) return false;
  return parsed.hostname.length > 0;
}

export type WindowOpenDecision = { action: 'deny'; openExternally: string | null };

/**
 * window.open and target=_blank: never a new Electron window; an http(s) link opens in the
 * user's browser instead.
 */
export function decideWindowOpen(url: string): WindowOpenDecision {
  return { action: 'deny', openExternally: openExternalAllowed(url) ? url : null };
}

function normalizePath(pathname: string): string {
  return pathname === '/' || pathname === '' ? '/index.html' : pathname;
}
