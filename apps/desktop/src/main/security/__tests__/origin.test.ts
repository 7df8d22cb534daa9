import { describe, expect, it } from 'vitest';
import { APP_ORIGIN, isAppUrl, isTrustedSender, originOf, resolveRendererLocation } from '../origin';

const prod = resolveRendererLocation({}, true);
const dev = resolveRendererLocation({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, false);

describe('resolveRendererLocation', () => {
  it('loads the built renderer through app:// by default', () => {
    expect(prod).toEqual({ entryUrl: 'app://threadline/index.html', origin: APP_ORIGIN, dev: false });
    expect(resolveRendererLocation({}, false).dev).toBe(false);
  });

  it('uses the electron-vite dev server only when not packaged', () => {
    expect(dev).toEqual({ entryUrl: 'http://localhost:5173', origin: 'http://localhost:5173', dev: true });
    expect(resolveRendererLocation({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, true)).toEqual(prod);
  });

  it('ignores a dev URL that is not local http', () => {
    expect(resolveRendererLocation({ ELECTRON_RENDERER_URL: 'https://evil.example' }, false)).toEqual(
      resolveRendererLocation({}, false),
    );
    expect(resolveRendererLocation({ ELECTRON_RENDERER_URL: 'http://10.0.0.5:5173' }, false).dev).toBe(false);
    expect(resolveRendererLocation({ ELECTRON_RENDERER_URL: 'not a url' }, false).dev).toBe(false);
  });
});

describe('originOf / isAppUrl', () => {
  it('builds origins for custom schemes that Node reports as "null"', () => {
    expect(new URL('app://threadline/x').origin).toBe('null');
    expect(originOf('app://threadline/index.html#/s/1')).toBe('app://threadline');
    expect(originOf('http://localhost:5173/src/main.tsx')).toBe('http://localhost:5173');
    expect(originOf('file:///tmp/index.html')).toBeNull();
    expect(originOf('garbage')).toBeNull();
  });

  it('matches only the exact origin', () => {
    expect(isAppUrl('app://threadline/index.html', prod)).toBe(true);
    expect(isAppUrl('app://threadline.evil/index.html', prod)).toBe(false);
    expect(isAppUrl('app://other/index.html', prod)).toBe(false);
    expect(isAppUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isAppUrl('http://localhost:5173/', dev)).toBe(true);
    expect(isAppUrl('file:///app/out/renderer/index.html', prod)).toBe(false);
  });
});

describe('isTrustedSender', () => {
  it('trusts the main frame of an app page', () => {
    expect(isTrustedSender({ url: 'app://threadline/index.html', isMainFrame: true }, prod)).toBe(true);
  });

  it('refuses iframes, foreign pages, missing frames', () => {
    expect(isTrustedSender({ url: 'app://threadline/index.html', isMainFrame: false }, prod)).toBe(false);
    expect(isTrustedSender({ url: 'https://example.com/', isMainFrame: true }, prod)).toBe(false);
    expect(isTrustedSender({ url: 'about:blank', isMainFrame: true }, prod)).toBe(false);
    expect(isTrustedSender(null, prod)).toBe(false);
    expect(isTrustedSender(undefined, prod)).toBe(false);
  });

  it('does not trust the dev server origin in a production location', () => {
    expect(isTrustedSender({ url: 'http://localhost:5173/', isMainFrame: true }, prod)).toBe(false);
  });
});
