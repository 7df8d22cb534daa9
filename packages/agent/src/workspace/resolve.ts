import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** `~` and `~/…` (or `~\…`) under `home`; anything else as given. */
export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(home, p.slice(2));
  return p;
}

const MAX_LINKS = 40;

function segments(p: string): string[] {
  return p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
}

/**
 * Where a path really leads, as the OS will follow it: `~` expanded, then component by component
 * with every symbolic link replaced by its target (a dangling one too: writing through it would
 * create the target) and `..` applied to the real parent, not the text before it (`link/..` is
 * the link target's parent). Components that do not exist yet are kept as written.
 * `base` is the folder a relative path is taken from; it should itself be resolved.
 */
export function resolveReal(
  input: string,
  base: string,
  home: string,
  /** Told of each folder whose entry `next` is looked at (workspace/reach.ts keeps a cache by them). */
  onStep?: (dir: string, next: string) => void,
): string {
  const expanded = expandHome(input, home);
  // Not path.join: it would apply `..` to the text before the links are followed.
  const abs = path.isAbsolute(expanded) ? expanded : `${base}${path.sep}${expanded}`;
  const { root } = path.parse(abs);
  const queue = segments(abs.slice(root.length));
  let cur = root;
  let links = 0;
  while (queue.length > 0) {
    const seg = queue.shift()!;
    if (seg === '..') {
      cur = path.dirname(cur);
      continue;
    }
    const next = path.join(cur, seg);
    onStep?.(cur, next);
    let isLink = false;
    try {
      // A missing component (most credential places) is no exception: kept as written.
      isLink = lstatSync(next, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
    } catch {
      // not a folder on the way (ENOTDIR) or not readable: kept as written
    }
    if (!isLink) {
      cur = next;
      continue;
    }
    if (++links > MAX_LINKS)
      throw Object.assign(
        new Error(`${input} leads through too many symbolic links (a link loop): it was not opened`),
        {
          code: 'ELOOP',
        },
      );
    const target = readlinkSync(next);
    const targetRoot = path.parse(target).root;
    if (path.isAbsolute(target)) cur = targetRoot;
    queue.unshift(...segments(target.slice(targetRoot.length)));
  }
  return cur;
}
