import path from 'node:path';
import type { FolderScan } from './scan';

/**
 * git's execution surface, wherever a repository is (the folder's own, a nested one, a submodule
 * or worktree checkout's `.git` file). Whatever git reads to decide what to run must come out of
 * a sandboxed command as it went in, so a later `git status` (the user's, an editor's, the app's)
 * runs nothing the command planted:
 * - before the command (mounts): each `.git` folder is bound onto itself, so it cannot be renamed,
 *   removed or replaced (EBUSY), and of it `config`, `config.worktree`, `commondir`, `hooks/`,
 *   `info/`, `modules/` (submodules' repositories) and `worktrees/` are read-only where they exist;
 *   a `.git` file is read-only itself. What everyday git writes stays writable: objects, refs,
 *   logs, the index, HEAD and the state files of a merge, rebase, stash, bisect or commit.
 * - after it (gitLeftover): of what it created or changed under any `.git` — a new repository
 *   (`git init`, `git clone`), or a new entry of an existing one — what git would read to run
 *   something is held for the user: a config with a key a fresh repository does not have, a hook
 *   that is not a `.sample`, `commondir`, `config.worktree`, `gitdir`, `info/` but `exclude`,
 *   `modules/`, `worktrees/`, any entry git does not write in everyday work; a `.git` file whole.
 */

/** Parts of a `.git` folder git reads to decide what to run: read-only in the sandbox. */
export const GIT_RUN_PARTS: readonly string[] = Object.freeze([
  'config',
  'config.worktree',
  'commondir',
  'hooks',
  'info',
  'modules',
  'worktrees',
]);

/** bwrap mounts of the git surface of a folder scan: `pinned` bound onto themselves, `readOnly` read-only. */
export function gitMounts(folder: string, scan: FolderScan, exists: (abs: string) => boolean) {
  const pinned = scan.gitDirs.map((g) => path.join(folder, g));
  const readOnly = [
    ...scan.gitFiles.map((g) => path.join(folder, g)),
    ...pinned.flatMap((g) => GIT_RUN_PARTS.map((p) => path.join(g, p)).filter(exists)),
  ];
  return { pinned, readOnly };
}

/**
 * Entries directly in a `.git` folder that git writes in everyday work (status, add, commit,
 * branch, stash, checkout, merge, rebase, cherry-pick, bisect, gc) and that name nothing to run.
 */
const EVERYDAY = new Set([
  'HEAD',
  'ORIG_HEAD',
  'FETCH_HEAD',
  'MERGE_HEAD',
  'MERGE_MSG',
  'MERGE_MODE',
  'MERGE_RR',
  'AUTO_MERGE',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'REBASE_HEAD',
  'BISECT_LOG',
  'BISECT_START',
  'BISECT_TERMS',
  'BISECT_EXPECTED_REV',
  'BISECT_ANCESTORS_OK',
  'BISECT_NAMES',
  'BISECT_RUN',
  'COMMIT_EDITMSG',
  'TAG_EDITMSG',
  'SQUASH_MSG',
  'ADD_EDIT.patch',
  'index',
  'packed-refs',
  'shallow',
  'description',
  'gc.pid',
  'gc.log',
  'objects',
  'refs',
  'logs',
  'branches',
  'rebase-merge',
  'rebase-apply',
  'sequencer',
  'rr-cache',
  'lfs',
]);

/** Keys a fresh `git init` / `git clone` writes: nothing in them runs a program. */
const PLAIN_GIT_KEYS = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks)$/,
  /^remote\.[^=]+\.(url|fetch|pushurl|tagopt|prune)$/,
  /^branch\.[^=]+\.(remote|merge|rebase)$/,
  /^extensions\.(objectformat|refstorage)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
];

/**
 * Whether a git config file holds only plain repository keys (anything unreadable is not plain).
 * `extensions.worktreeConfig` is not plain: it makes git read `config.worktree`, a second config.
 */
export function plainGitConfig(text: string): boolean {
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]$/.exec(line);
    if (head) {
      section = head[2] !== undefined ? `${head[1]!.toLowerCase()}.${head[2]}` : head[1]!.toLowerCase();
      continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(=.*)?$/.exec(line);
    if (!kv || section === '') return false;
    const key = `${section}.${kv[1]!.toLowerCase()}`;
    if (!PLAIN_GIT_KEYS.some((re) => re.test(key))) return false;
  }
  return true;
}

/**
 * For a path a sandboxed command created or changed (relative, `/`-separated): when it lies in or
 * is a `.git`, what to hold (the path of the entry to take away) or null (everyday git's). `kind`:
 * what the path is now; `configText` reads a config file (null: unreadable, not a file).
 */
export async function gitLeftover(
  rel: string,
  kind: 'dir' | 'file' | 'other',
  configText: (rel: string) => Promise<string | null>,
): Promise<string | null | undefined> {
  const segs = rel.split('/');
  const at = segs.indexOf('.git');
  if (at < 0) return undefined; // not git's: the other rules decide
  const git = segs.slice(0, at + 1).join('/');
  const inner = segs.slice(at + 1);
  // The `.git` itself: a folder is judged by what is in it; a file points git elsewhere.
  if (inner.length === 0) return kind === 'dir' ? null : git;
  const [top, next] = inner as [string, string | undefined];
  if (EVERYDAY.has(top) || top.endsWith('.lock')) return null;
  if (top === 'config' && inner.length === 1) {
    const text = kind === 'file' ? await configText(rel) : null;
    return text !== null && plainGitConfig(text) ? null : rel;
  }
  if (top === 'hooks') {
    if (next === undefined) return kind === 'dir' ? null : rel;
    // git never runs a `.sample`; anything else in hooks/ is a hook.
    return next.endsWith('.sample') && inner.length === 2 && kind === 'file' ? null : `${git}/hooks/${next}`;
  }
  if (top === 'info') {
    if (next === undefined) return kind === 'dir' ? null : rel;
    return next === 'exclude' && inner.length === 2 && kind === 'file' ? null : `${git}/info/${next}`;
  }
  return `${git}/${top}`;
}

/**
 * What the model reads under a failed command that git's read-only parts stopped (`git config`,
 * `git remote add`, a hook installer, `git submodule`, `git worktree add`): the rule and how to
 * ask for it. Null when the output shows no such refusal.
 */
export function gitRefusalHint(output: string): string | null {
  const refused =
    /could not (lock|write|commit|rename) config file|unable to (write|create|rename) .*\.git\/(config|hooks|info|modules|worktrees|commondir)|\.git\/(config|hooks|info|modules|worktrees)[^\n]*(read-only file system|device or resource busy|permission denied)/i;
  if (!refused.test(output)) return null;
  return '[sandbox] In the OS sandbox the parts of a git repository that make git run programs are read-only: its config (so `git config`, `git remote add` or `set-url` are refused), hooks/, info/, modules/ (submodules) and worktrees/. Everyday git (status, add, commit, branch, stash, checkout, log, diff) works. If the task needs this change, call shell again with the same command and "sandbox": false; the user is asked to approve it.';
}
