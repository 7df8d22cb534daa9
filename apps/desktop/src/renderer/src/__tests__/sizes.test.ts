import { describe, expect, it } from 'vitest';
import { formatBytes } from '../lib/sizes';

describe('formatBytes', () => {
  it('says bytes as bytes, and one decimal below ten of a unit', () => {
    expect(formatBytes(0, 'en')).toBe('0 B');
    expect(formatBytes(44, 'en')).toBe('44 B');
    expect(formatBytes(1023, 'en')).toBe('1,023 B');
    expect(formatBytes(1536, 'en')).toBe('1.5 KB');
    expect(formatBytes(230 * 1024, 'en')).toBe('230 KB');
    expect(formatBytes(4.25 * 1024 * 1024, 'en')).toBe('4.3 MB');
    expect(formatBytes(1536, 'de')).toBe('1,5 KB');
  });
});
