import { statSync } from 'node:fs';
import path from 'node:path';

/**
 * The repository a folder belongs to: the nearest folder at or above it holding `.git` (a folder,
 * or a file in a worktree), never the home folder or above it, nor a file-system root. Null when
 * the folder is in no repository.
 */
export function repoRoot(folder: string, home: string): string | null {
  for (const dir of foldersUp(folder, home)) {
    try {
      statSync(path.join(dir, '.git'));
      return dir;
    } catch {
      // not here
    }
  }
  return null;
}

/** `folder`, its parent… up to (not including) the home folder or a file-system root. */
export function foldersUp(folder: string, home: string): string[] {
  const out: string[] = [];
  let dir = path.resolve(folder);
  const stop = path.resolve(home);
  while (dir !== stop && path.parse(dir).root !== dir) {
    out.push(dir);
    dir = path.dirname(dir);
  }
  return out;
}
