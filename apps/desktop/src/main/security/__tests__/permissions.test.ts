import { describe, expect, it } from 'vitest';
import { decidePermission } from '../permissions';
import { resolveRendererLocation } from '../origin';

const prod = resolveRendererLocation({}, true);

describe('decidePermission', () => {
  it('denies by default', () => {
    for (const p of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'openExternal',
      'hid',
      'usb',
      'serial',
      'fileSystem',
      'unknown',
    ]) {
      expect(decidePermission(p, 'app://threadline/index.html', prod), p).toBe(false);
    }
  });

  it('lets only the app itself write to the clipboard', () => {
    expect(decidePermission('clipboard-sanitized-write', 'app://threadline/index.html', prod)).toBe(true);
    expect(decidePermission('clipboard-sanitized-write', 'https://evil.example/', prod)).toBe(false);
    expect(decidePermission('clipboard-sanitized-write', undefined, prod)).toBe(false);
  });
});
