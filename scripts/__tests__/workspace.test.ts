import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The workspace's package.json files: what they point at exists, and test-only packages are never
// runtime dependencies.
const root = resolve(import.meta.dirname, '../..');
const TEST_ONLY = ['@threadline/fake-llm', '@playwright/test', 'playwright-core', 'vitest', '@testing-library/react'];

interface Manifest {
  name: string;
  main?: string;
  exports?: string | Record<string, string | Record<string, string>>;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
}

const dirs = ['apps', 'packages'].flatMap((group) => readdirSync(join(root, group)).map((name) => join(group, name)));
const manifests = [...dirs, 'e2e']
  .filter((dir) => existsSync(join(root, dir, 'package.json')))
  .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as Manifest }));

/** Every file path a manifest points at (exports with conditions flattened). */
function targets(pkg: Manifest): string[] {
  const flat = (v: unknown): string[] =>
    typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(flat) : [];
  return [...(pkg.main ? [pkg.main] : []), ...flat(pkg.exports), ...flat(pkg.bin)];
}

describe('workspace packages', () => {
  it('finds the packages', () => {
    expect(manifests.map((m) => m.pkg.name)).toEqual(expect.arrayContaining(['@threadline/server', '@threadline/e2e']));
  });

  // apps/desktop's main is its build output (out/main), there only after a build.
  it.each(manifests.filter((m) => m.dir !== 'apps/desktop'))(
    '$pkg.name: exports, main and bin exist',
    ({ dir, pkg }) => {
      const missing = targets(pkg).filter((t) => !existsSync(join(root, dir, t)));
      expect(missing).toEqual([]);
    },
  );

  it.each(manifests)('$pkg.name: no test-only package among its dependencies', ({ pkg }) => {
    expect(Object.keys(pkg.dependencies ?? {}).filter((d) => TEST_ONLY.includes(d))).toEqual([]);
  });
});
