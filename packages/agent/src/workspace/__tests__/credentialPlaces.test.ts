// The resolved credential places are kept between checks (issue 41, the step overhead) only while
// nothing they were resolved through changed: a place created or symlinked later still counts.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialPlaces, classifyPath } from '../reach';

let root = '';
afterEach(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

/** A home folder with a dotfiles folder beside its places (none of which exists yet). */
function home(): { home: string; target: string } {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'tl-places-')));
  const h = path.join(root, 'home');
  const target = path.join(h, 'dotfiles', 'aws');
  mkdirSync(target, { recursive: true });
  return { home: h, target };
}

const ctimeOf = (p: string): bigint => statSync(p, { bigint: true }).ctimeNs;

/**
 * Makes `link` → `target`, again until the folder's timestamp has moved on from `before` (two
 * changes in one clock tick can share a timestamp; the cache's racy rule is about that).
 */
function linkUntilStamped(target: string, link: string, before: bigint): void {
  symlinkSync(target, link);
  while (ctimeOf(path.dirname(link)) === before) {
    unlinkSync(link);
    symlinkSync(target, link);
  }
}

/** Folders made by the test count as old: the clock says a minute later. */
const later = (): number => Date.now() + 60_000;

describe('credential places', () => {
  it('are resolved once while nothing they pass through changed', () => {
    const { home: h } = home();
    const places = new CredentialPlaces(later);
    const first = places.of(h);
    expect(places.of(h)).toBe(first);
    expect(places.of(h)).toBe(first);
    expect(places.resolutions).toBe(1);
  });

  it('are resolved again once a place is symlinked after the cache was filled', () => {
    const { home: h, target } = home();
    const places = new CredentialPlaces(later);
    const before = ctimeOf(h);
    expect(places.of(h)).not.toContain(target);
    linkUntilStamped(target, path.join(h, '.aws'), before);
    expect(places.of(h)).toContain(target);
    expect(places.resolutions).toBe(2);
  });

  it('are resolved again once a folder on a place’s way is created and a place linked in it', () => {
    const { home: h, target } = home();
    const places = new CredentialPlaces(later);
    const before = ctimeOf(h);
    expect(places.of(h)).not.toContain(target);
    // ~/.config did not exist: its parent's entries changed.
    mkdirSync(path.join(h, '.config'));
    while (ctimeOf(h) === before) {
      rmSync(path.join(h, '.config'), { recursive: true });
      mkdirSync(path.join(h, '.config'));
    }
    places.of(h);
    const config = ctimeOf(path.join(h, '.config'));
    linkUntilStamped(target, path.join(h, '.config', 'gh'), config);
    expect(places.of(h)).toContain(target);
    expect(places.resolutions).toBe(3);
  });

  it('are not kept when a folder they pass through changed just before (same clock tick)', () => {
    const { home: h } = home();
    const places = new CredentialPlaces(); // the real clock: the folders were made just now
    places.of(h);
    places.of(h);
    expect(places.resolutions).toBe(2);
  });

  it('through the process cache: a place linked between two checks is refused at the second', () => {
    const { home: h, target } = home();
    const reach = {
      folder: path.join(root, 'work'),
      home: h,
      dataDir: path.join(root, 'data'),
      dbFile: path.join(root, 'data', 'db.sqlite'),
      platform: process.platform,
    };
    const file = path.join(target, 'config');
    expect(classifyPath(file, reach).zone).toBe('outside');
    symlinkSync(target, path.join(h, '.aws'));
    expect(classifyPath(file, reach)).toMatchObject({ zone: 'credential', reason: 'credential_store' });
  });
});
