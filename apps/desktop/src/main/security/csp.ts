import { isAppUrl, type RendererLocation } from './origin';

/**
 * The Content-Security-Policy of the app's own pages. No 'unsafe-eval' anywhere; scripts only
 * from the app's origin. Inline styles are allowed because React and the virtualized list set
 * style attributes; that cannot run code. In dev the Vite client needs its websocket and the
 * React refresh preamble (an inline script), so dev adds exactly those two.
 */
export function cspHeader(location: Pick<RendererLocation, 'origin' | 'dev'>): string {
  const self = "'self'";
  const script = location.dev ? [self, "'unsafe-inline'"] : [self];
  const connect = [self];
  if (location.dev) connect.push(location.origin.replace(/^http/, 'ws'));
  const directives: [string, string[]][] = [
    ['default-src', [self]],
    ['script-src', script],
    ['style-src', [self, "'unsafe-inline'"]],
    ['img-src', [self, 'data:', 'blob:']],
    ['font-src', [self, 'data:']],
    ['connect-src', connect],
    ['worker-src', [self, 'blob:']],
    ['object-src', ["'none'"]],
    ['frame-src', ["'none'"]],
    ['frame-ancestors', ["'none'"]],
    ['base-uri', ["'none'"]],
    ['form-action', ["'none'"]],
  ];
  return directives.map(([name, values]) => `${name} ${values.join(' ')}`).join('; ');
}

type Headers = Record<string, string[] | string>;

/**
 * onHeadersReceived: put our CSP on the app's own documents (replacing whatever the dev server
 * sent); leave other responses (e.g. a provider's API, which the renderer never calls) alone.
 */
export function withCsp(
  url: string,
  headers: Headers | undefined,
  location: Pick<RendererLocation, 'origin' | 'dev'>,
): Headers {
  const out: Headers = {};
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (isAppUrl(url, location) && key.toLowerCase() === 'content-security-policy') continue;
    out[key] = value;
  }
  if (isAppUrl(url, location)) out['Content-Security-Policy'] = [cspHeader(location)];
  return out;
}
