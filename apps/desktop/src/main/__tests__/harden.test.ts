import { describe, expect, it } from 'vitest';
import type { Session, WebContents } from 'electron';
import { hardenSession, hardenWebContents } from '../harden';
import { cspHeader, resolveRendererLocation } from '../security';

const location = resolveRendererLocation({}, true);

type Handler = (...args: unknown[]) => unknown;

/** The few WebContents members hardenWebContents touches. */
function fakeContents() {
  const handlers = new Map<string, Handler>();
  let openHandler: Handler | null = null;
  const contents = {
    on: (name: string, h: Handler) => void handlers.set(name, h),
    setWindowOpenHandler: (h: Handler) => void (openHandler = h),
  };
  const fire = (name: string, url: string) => {
    let prevented = false;
    handlers.get(name)!({ url, preventDefault: () => (prevented = true) });
    return prevented;
  };
  return { contents: contents as unknown as WebContents, handlers, fire, open: (url: string) => openHandler!({ url }) };
}

function setup() {
  const opened: string[] = [];
  const f = fakeContents();
  hardenWebContents(f.contents, { location, openExternal: (u) => opened.push(u) });
  return { ...f, opened };
}

describe('hardenWebContents', () => {
  it('installs every hook', () => {
    expect([...setup().handlers.keys()].sort()).toEqual(['will-attach-webview', 'will-navigate', 'will-redirect']);
  });

  it('denies navigation away from the app and sends http(s) links to the browser', () => {
    const s = setup();
    expect(s.fire('will-navigate', 'https://example.com/docs')).toBe(true);
    expect(s.fire('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(s.fire('will-navigate', 'app://threadline/index.html#/settings')).toBe(false);
    expect(s.opened).toEqual(['https://example.com/docs']);
  });

  it('denies redirects and webviews without opening anything', () => {
    const s = setup();
    expect(s.fire('will-redirect', 'https://evil.example/')).toBe(true);
    expect(s.fire('will-attach-webview', 'https://evil.example/')).toBe(true);
    expect(s.opened).toEqual([]);
  });

  it('never opens a new window; http(s) goes external, other schemes nowhere', () => {
    const s = setup();
    expect(s.open('https://openrouter.ai/keys')).toEqual({ action: 'deny' });
    expect(s.open('file:///C:/calc.exe')).toEqual({ action: 'deny' });
    expect(s.open('javascript:alert(1)')).toEqual({ action: 'deny' });
    expect(s.opened).toEqual(['https://openrouter.ai/keys']);
  });
});

describe('hardenSession', () => {
  function fakeSession() {
    const hooks: Record<string, Handler> = {};
    const session = {
      webRequest: { onHeadersReceived: (h: Handler) => void (hooks.headers = h) },
      setPermissionRequestHandler: (h: Handler) => void (hooks.request = h),
      setPermissionCheckHandler: (h: Handler) => void (hooks.check = h),
      setDevicePermissionHandler: (h: Handler) => void (hooks.device = h),
    };
    hardenSession(session as unknown as Session, { location, openExternal: () => {} });
    return hooks;
  }

  it('adds the CSP to app responses', () => {
    const hooks = fakeSession();
    let result: unknown;
    hooks.headers!({ url: 'app://threadline/index.html', responseHeaders: {} }, (r: unknown) => (result = r));
    expect(result).toEqual({ responseHeaders: { 'Content-Security-Policy': [cspHeader(location)] } });
  });

  it('denies permission requests and checks by default', () => {
    const hooks = fakeSession();
    const answers: boolean[] = [];
    hooks.request!({}, 'media', (g: boolean) => answers.push(g), { requestingUrl: 'app://threadline/index.html' });
    hooks.request!({}, 'clipboard-sanitized-write', (g: boolean) => answers.push(g), {
      requestingUrl: 'app://threadline/index.html',
    });
    hooks.request!({}, 'clipboard-sanitized-write', (g: boolean) => answers.push(g), {
      requestingUrl: 'https://evil.example/',
    });
    expect(answers).toEqual([false, true, false]);
    expect(hooks.check!({}, 'geolocation', 'app://threadline', {})).toBe(false);
    expect(hooks.check!({}, 'clipboard-sanitized-write', 'app://threadline', {})).toBe(true);
    expect(hooks.device!({})).toBe(false);
  });
});
