// Electron glue for the security policy in ./security: every hook that enforces it on a
// session or a webContents is installed here, in one place. Only `import type` from electron,
// so the wiring is unit-tested with hand-made fakes.
import type { Session, WebContents } from 'electron';
import {
  decidePermission,
  decideWindowOpen,
  openExternalAllowed,
  shouldAllowNavigation,
  withCsp,
  type RendererLocation,
} from './security';

export interface HardenOptions {
  location: RendererLocation;
  /** shell.openExternal; only ever called with URLs that passed openExternalAllowed. */
  openExternal: (url: string) => void;
  log?: (message: string) => void;
}

/**
 * Navigation, redirects, new windows and <webview> are all denied. A clicked http(s) link goes
 * to the user's browser instead of replacing the app.
 */
export function hardenWebContents(contents: WebContents, opts: HardenOptions): void {
  const openIfAllowed = (url: string): void => {
    if (openExternalAllowed(url)) opts.openExternal(url);
    else opts.log?.(`blocked opening ${url.slice(0, 200)}`);
  };
  contents.on('will-navigate', (event) => {
    if (shouldAllowNavigation(event.url, opts.location)) return;
    event.preventDefault();
    openIfAllowed(event.url);
  });
  contents.on('will-redirect', (event) => {
    if (shouldAllowNavigation(event.url, opts.location)) return;
    event.preventDefault();
    opts.log?.(`blocked redirect to ${event.url.slice(0, 200)}`);
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideWindowOpen(url);
    if (decision.openExternally) opts.openExternal(decision.openExternally);
    return { action: decision.action };
  });
}

/** CSP on the app's own responses and deny-by-default permissions for the whole session. */
export function hardenSession(session: Session, opts: HardenOptions): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCsp(details.url, details.responseHeaders, opts.location) });
  });
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    const granted = decidePermission(permission, details.requestingUrl, opts.location);
    if (!granted) opts.log?.(`denied permission ${permission}`);
    callback(granted);
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    decidePermission(permission, details.requestingUrl ?? requestingOrigin, opts.location),
  );
  session.setDevicePermissionHandler(() => false);
}
