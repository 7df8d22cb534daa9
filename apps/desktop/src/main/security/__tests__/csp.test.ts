import { describe, expect, it } from 'vitest';
import { cspHeader, withCsp } from '../csp';
import { resolveRendererLocation } from '../origin';

const prod = resolveRendererLocation({}, true);
const dev = resolveRendererLocation({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, false);

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values]),
  );
}

describe('cspHeader', () => {
  it('is strict in production: no eval, no inline script, no objects or frames', () => {
    const d = directives(cspHeader(prod));
    expect(cspHeader(prod)).not.toContain('unsafe-eval');
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(d.get('default-src')).toEqual(["'self'"]);
    expect(d.get('object-src')).toEqual(["'none'"]);
    expect(d.get('frame-src')).toEqual(["'none'"]);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.get('base-uri')).toEqual(["'none'"]);
    expect(d.get('form-action')).toEqual(["'none'"]);
    expect(d.get('connect-src')).toEqual(["'self'"]);
  });

  it('in dev allows only the Vite websocket and the refresh preamble, still no eval', () => {
    const d = directives(cspHeader(dev));
    expect(cspHeader(dev)).not.toContain('unsafe-eval');
    expect(d.get('connect-src')).toEqual(["'self'", 'ws://localhost:5173']);
    expect(d.get('script-src')).toEqual(["'self'", "'unsafe-inline'"]);
  });
});

describe('withCsp', () => {
  it('sets the policy on app pages, replacing a policy the server sent', () => {
    const out = withCsp(
      'http://localhost:5173/',
      { 'content-security-policy': ['default-src *'], 'X-Other': ['1'] },
      dev,
    );
    expect(out['Content-Security-Policy']).toEqual([cspHeader(dev)]);
    expect(out['content-security-policy']).toBeUndefined();
    expect(out['X-Other']).toEqual(['1']);
  });

  it('leaves foreign responses untouched', () => {
    const headers = { 'content-security-policy': ['default-src *'] };
    expect(withCsp('https://api.openai.com/v1/models', headers, prod)).toEqual(headers);
    expect(withCsp('https://api.openai.com/v1/models', undefined, prod)).toEqual({});
  });
});
