import { describe, expect, it } from 'vitest';
import { findPaths, isDateOnly, isPathLike, normalizePath } from '../paths';

describe('isPathLike', () => {
  it.each([
    'C:\\Users\\Ann\\Desktop',
    'C:\\Users\\Ann Lee\\OneDrive\\桌面',
    '\\\\server\\share\\x.txt',
    '/home/ann/Desktop',
    '/tmp',
    '~/Documents/report.md',
    './build.sh',
    '../lib/a.ts',
    'src/foo.py',
    'django/db/backends',
    'reproduce.py',
  ])('accepts %s', (p) => expect(isPathLike(p)).toBe(true));

  it.each([
    '2024/7/19',
    '2025-04-30',
    '7/19',
    'tabs/spaces',
    'Europe/Paris',
    '/returncode',
    'e:\\n',
    'hello',
    'e.g.',
    '1.2.3',
    'https://x.org/a/b.py',
    'two words.py',
  ])('rejects %s', (p) => expect(isPathLike(p)).toBe(false));
});

describe('isDateOnly', () => {
  it('knows dates', () => {
    expect(isDateOnly('2024/7/19')).toBe(true);
    expect(isDateOnly('2025-04-30')).toBe(true);
    expect(isDateOnly('src/2024.py')).toBe(false);
  });
});

describe('findPaths', () => {
  it('finds Windows paths with spaces when quoted, POSIX and relative ones, and strips line numbers', () => {
    const line = `Copy "C:\\Users\\Ann Lee\\Desktop\\a b.txt" to /srv/app/data.json and edit src/main.ts:12:3 (see ~/notes.md).`;
    expect(findPaths(line)).toEqual([
      'C:\\Users\\Ann Lee\\Desktop\\a b.txt',
      '/srv/app/data.json',
      'src/main.ts',
      '~/notes.md',
    ]);
  });

  it('ignores URLs, XML-ish tags, dates and code calls', () => {
    expect(
      findPaths(
        '<returncode>0</returncode> on 2024/7/19 see https://a.io/x/y.py math.log(2) from django.conf import x',
      ),
    ).toEqual([]);
  });

  it('normalizes trailing punctuation and quotes', () => {
    expect(normalizePath("'src/a.py',")).toBe('src/a.py');
  });
});
