import { isAppUrl, type RendererLocation } from './origin';

/**
 * Permission requests and checks are denied by default. The single exception is writing to
 * the clipboard (the code blocks' copy buttons), and only for the app's own pages. Reading the
 * clipboard, media, notifications, geolocation, HID/USB/serial, openExternal… are all denied.
 */
const ALLOWED_FOR_APP = new Set(['clipboard-sanitized-write']);

export function decidePermission(
  permission: string,
  requestingUrl: string | undefined,
  location: Pick<RendererLocation, 'origin'>,
): boolean {
  if (!ALLOWED_FOR_APP.has(permission)) return false;
  return typeof requestingUrl === 'string' && isAppUrl(requestingUrl, location);
}
