import { describe, expect, it } from 'vitest';
import { decideWindowOpen, openExternalAllowed, shouldAllowNavigation } from '../navigation';
import { resolveRendererLocation } from '../origin';

const prod = resolveRendererLocation({}, true);
const dev = resolveRendererLocation({ ELECTRON_RENDERER_URL: 'http://localhost:5173/' }, false);

describe('shouldAllowNavigation', () => {
  it('allows staying on the app entry (reload, hash routes)', () => {
    expect(shouldAllowNavigation('app://threadline/index.html', prod)).toBe(true);
    expect(shouldAllowNavigation('app://threadline/index.html#/settings', prod)).toBe(true);
    expect(shouldAllowNavigation('app://threadline/', prod)).toBe(true);
    expect(shouldAllowNavigation('http://localhost:5173/', dev)).toBe(true);
  });

  it('denies everything else', () => {
    for (const url of [
      'https://example.com/',
      'http://localhost:5173/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'app://threadline/other.html',
      'app://evil/index.html',
      'not a url',
    ]) {
      expect(shouldAllowNavigation(url, prod), url).toBe(false);
    }
  });
});

describe('openExternalAllowed', () => {
  it('allows http and https links', () => {
    expect(openExternalAllowed('https://platform.openai.com/api-keys')).toBe(true);
    expect(openExternalAllowed('http://127.0.0.1:11434/')).toBe(true);
  });

  it('refuses every other scheme and disguised links', () => {
    for (const url of [
      'file:///C:/Windows/System32/calc.exe',
      'smb://host/share',
      'javascript:alert(1)',
      'ms-msdt:/id PCWDiagnostic',
      'vscode://file/etc/passwd',
      'mailto:a@b.c',
      'https://user:pass@evil.example/',
      'https:',
      '',
    ]) {
      expect(openExternalAllowed(url), url).toBe(false);
    }
  });
});

describe('decideWindowOpen', () => {
  it('always denies a new window and opens only http(s) externally', () => {
    expect(decideWindowOpen('https://example.com')).toEqual({ action: 'deny', openExternally: 'https://example.com' });
    expect(decideWindowOpen('file:///etc/passwd')).toEqual({ action: 'deny', openExternally: null });
    expect(decideWindowOpen('app://threadline/index.html')).toEqual({ action: 'deny', openExternally: null });
  });
});
