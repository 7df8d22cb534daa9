import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { CheckpointFile, CheckpointFileStatus, CheckpointSkipped } from '@threadline/protocol';
import { readRegularFile } from '../workspace/fileAccess';

/**
 * A shadow git repository of one working folder: GIT_DIR in the app's data folder, the folder
 * itself as GIT_WORK_TREE. Nothing is written inside the folder, the folder's own `.git` is never
 * read as a repository (git skips any `.git` in a work tree; only its `info/exclude` is copied),
 * and every git runs with a clean environment: no system or global config, HOME pointed at a
 * neutral folder, hooks and fsmonitor off, and attributes that turn off every filter and line-ending
 * conversion, so a config or `.gitattributes` planted in the folder cannot run code or change bytes.
 * git always runs as an async child process (execFile), never on the thread that answers requests.
 */

export interface SnapshotCaps {
  /** A file larger than this is left out of the snapshot (and named in `skipped.tooLarge`). */
  maxFileBytes: number;
  /** The snapshot holds at most this many bytes of files; what does not fit is counted, left out. */
  maxTotalBytes: number;
  /** And at most this many files. */
  maxFiles: number;
}

export const DEFAULT_SNAPSHOT_CAPS: SnapshotCaps = {
  maxFileBytes: 5 * 1024 * 1024,
  maxTotalBytes: 200 * 1024 * 1024,
  maxFiles: 20_000,
};

/** How many over-cap paths a checkpoint names (the rest are only counted). */
const NAMED_SKIPS = 50;
/** A file's diff longer than this is cut (the user reads it in the chat). */
const PATCH_MAX_CHARS = 64 * 1024;

export interface Snapshot {
  commit: string;
  skipped: CheckpointSkipped;
}

export class GitError extends Error {}

/** One git command of a checkpoint runs at most this long. */
export const GIT_TIMEOUT_MS = 60_000;

/** Runs git with the clean environment; stdout as a Buffer. */
function runGit(git: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      git,
      [
        '-c',
        'core.hooksPath=/dev/null',
        '-c',
        'core.fsmonitor=false',
        '-c',
        'core.autocrlf=false',
        '-c',
        'core.safecrlf=false',
        '-c',
        'core.quotePath=false',
        '-c',
        'commit.gpgSign=false',

        ...args,
      ],
      // A git that waits (it opens a FIFO planted as a .gitignore, which blocks until a writer
      // comes) is killed, so the turn and its Stop never wait on it for ever.
      {
        env,
        cwd,
        encoding: 'buffer',
        maxBuffer: 256 * 1024 * 1024,
        windowsHide: true,
        timeout: GIT_TIMEOUT_MS,
        killSignal: 'SIGKILL',
      },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (err.killed && err.signal === 'SIGKILL') {
            reject(
              new GitError(
                `git ${args[0]} did not finish within ${GIT_TIMEOUT_MS / 1000} s and was stopped (a named pipe in the folder, e.g. a .gitignore that is a FIFO, makes git wait for ever)`,
              ),
            );
            return;
          }
          const detail = stderr.toString('utf8').trim() || err.message;
          reject(
            code === 'ENOENT' ? Object.assign(new GitError(`git not found: ${git}`), { code }) : new GitError(detail),
          );
          return;
        }
        resolve(stdout);
      },
    );
    if (input) child.stdin?.end(input);
    else child.stdin?.end();
  });
}

/** Whether `git` runs at all (answered once per runtime by the caller). */
export async function gitVersion(git: string, neutralHome: string): Promise<string | null> {
  try {
    await fs.mkdir(neutralHome, { recursive: true });
    const out = await runGit(git, ['--version'], cleanEnv(neutralHome), neutralHome);
    return out.toString('utf8').trim();
  } catch {
    return null;
  }
}

function cleanEnv(neutralHome: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    // Only what git needs to find itself; nothing of the user's git environment (GIT_DIR…).
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...(process.env.SYSTEMROOT ? { SYSTEMROOT: process.env.SYSTEMROOT } : {}),
    HOME: neutralHome,
    XDG_CONFIG_HOME: neutralHome,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(neutralHome, 'empty-gitconfig'),
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_AUTHOR_NAME: 'Threadline',
    GIT_AUTHOR_EMAIL: 'checkpoints@threadline.invalid',
    GIT_COMMITTER_NAME: 'Threadline',
    GIT_COMMITTER_EMAIL: 'checkpoints@threadline.invalid',
    ...extra,
  };
}

function splitZ(out: Buffer): string[] {
  return out
    .toString('utf8')
    .split('\0')
    .filter((s) => s !== '');
}

function nulList(paths: readonly string[]): Buffer {
  return Buffer.from(paths.map((p) => `${p}\0`).join(''), 'utf8');
}

/** Where a folder's shadow repository lives: `<root>/<sha256 of the folder's path, 16 hex>`. */
export function shadowDirFor(root: string, folder: string): string {
  return path.join(root, createHash('sha256').update(folder).digest('hex').slice(0, 16));
}

export class ShadowRepo {
  readonly gitDir: string;
  private readonly env: NodeJS.ProcessEnv;

  /** Set once `ensure` has created and configured the repository in this process. */
  private configured = false;

  constructor(
    private readonly git: string,
    /** `<dataDir>/checkpoints` */
    private readonly root: string,
    readonly folder: string,
    /**
     * Absolute paths never snapshotted even inside the folder: the app's own data folder (this
     * repository included) and database files.
     */
    private readonly never: readonly string[] = [],
  ) {
    this.gitDir = shadowDirFor(root, folder);
    this.env = cleanEnv(this.neutralHome, { GIT_DIR: this.gitDir, GIT_WORK_TREE: folder });
  }

  private get neutralHome(): string {
    return path.join(this.root, '.home');
  }

  private run(args: string[], input?: Buffer): Promise<Buffer> {
    return runGit(this.git, args, this.env, this.folder, input);
  }

  /** Creates the repository on first use: our own config, attributes, and no hooks. */
  async ensure(): Promise<void> {
    if (!this.configured || !existsSync(path.join(this.gitDir, 'HEAD'))) await this.configure();
    await fs.mkdir(path.join(this.gitDir, 'info'), { recursive: true });
    // Highest precedence: no filter, no line-ending or encoding conversion, whatever the folder says.
    await fs.writeFile(
      path.join(this.gitDir, 'info', 'attributes'),
      '* -text -filter -ident -working-tree-encoding -export-subst\n',
    );
    // The folder's own .gitignore files are read by git itself; its repository's info/exclude is
    // copied (again before each snapshot: it may change), and the app's own files are left out.
    let exclude = '';
    try {
      // A regular file only: a FIFO planted there is never opened (workspace/fileAccess.ts).
      const own = await readRegularFile(path.join(this.folder, '.git', 'info', 'exclude'), 1024 * 1024);
      if (!own.capped) exclude = own.bytes.toString('utf8');
    } catch {
      exclude = '';
    }
    const ours = this.never
      .map((p) => path.relative(this.folder, p))
      .filter((rel) => rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel))
      .map(
        (rel) =>
          `/${rel
            .split(path.sep)
            .join('/')
            .replace(/[\\*?[\]!#\s]/g, (c) => `\\${c}`)}`,
      );
    await fs.writeFile(path.join(this.gitDir, 'info', 'exclude'), `${exclude}\n${ours.join('\n')}\n`);
  }

  private async configure(): Promise<void> {
    await fs.mkdir(this.neutralHome, { recursive: true });
    await fs.writeFile(path.join(this.neutralHome, 'empty-gitconfig'), '');
    if (!existsSync(path.join(this.gitDir, 'HEAD'))) {
      await fs.mkdir(this.gitDir, { recursive: true });
      await this.run(['init', '-q']);
      await fs.writeFile(path.join(this.gitDir, 'description'), `Threadline checkpoints of ${this.folder}\n`);
      await fs.rm(path.join(this.gitDir, 'hooks'), { recursive: true, force: true });
    }
    for (const [k, v] of [
      ['core.bare', 'false'],
      ['core.autocrlf', 'false'],
      ['core.hooksPath', '/dev/null'],
      ['core.fsmonitor', 'false'],
      ['core.symlinks', 'true'],
      ['gc.auto', '0'],
      ['commit.gpgSign', 'false'],
    ])
      await this.run(['config', k, v]);
    this.configured = true;
  }

  /** Records the folder's files (what .gitignore and the caps let in) as a commit. */
  async snapshot(message: string, caps: SnapshotCaps): Promise<Snapshot> {
    await this.ensure();
    const listed = splitZ(await this.run(['ls-files', '-z', '--cached', '--others', '--exclude-standard']));
    // Entries the index still holds may have become ignored since: ask git which ones are.
    const ignored = new Set(
      listed.length === 0
        ? []
        : splitZ(
            await this.run(['check-ignore', '-z', '--no-index', '--stdin'], nulList(listed)).catch(() =>
              Buffer.alloc(0),
            ),
          ),
    );
    const nestedRepos: string[] = [];
    const tooLarge: string[] = [];
    let overBudget = 0;
    let total = 0;
    const keep: string[] = [];
    for (const rel of [...new Set(listed)].sort()) {
      if (ignored.has(rel)) continue;
      if (rel.endsWith('/')) {
        // An untracked folder git lists whole: a repository of its own (git will not go inside).
        nestedRepos.push(rel.slice(0, -1));
        continue;
      }
      let st;
      try {
        st = await fs.lstat(path.join(this.folder, rel));
      } catch {
        continue; // gone: the index entry is dropped below
      }
      if (st.isDirectory()) {
        nestedRepos.push(rel);
        continue;
      }
      if (!st.isFile() && !st.isSymbolicLink()) continue;
      if (st.isFile() && st.size > caps.maxFileBytes) {
        tooLarge.push(rel);
        continue;
      }
      if (total + st.size > caps.maxTotalBytes || keep.length >= caps.maxFiles) {
        overBudget++;
        continue;
      }
      total += st.size;
      keep.push(rel);
    }
    const kept = new Set(keep);
    if (keep.length > 0) await this.run(['add', '-f', '--pathspec-from-file=-', '--pathspec-file-nul'], nulList(keep));
    const stale = splitZ(await this.run(['ls-files', '-z', '--cached'])).filter((p) => !kept.has(p));
    if (stale.length > 0) await this.run(['update-index', '--force-remove', '-z', '--stdin'], nulList(stale));
    const tree = (await this.run(['write-tree'])).toString('utf8').trim();
    const parent = await this.head();
    const commit = (await this.run(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message]))
      .toString('utf8')
      .trim();
    // One ref keeps every snapshot reachable (gc is off too).
    await this.run(['update-ref', 'refs/heads/snapshots', commit]);
    return {
      commit,
      skipped: {
        tooLarge: tooLarge.slice(0, NAMED_SKIPS),
        overBudget: overBudget + Math.max(0, tooLarge.length - NAMED_SKIPS),
        nestedRepos: nestedRepos.slice(0, NAMED_SKIPS),
        maxFileBytes: caps.maxFileBytes,
        maxTotalBytes: caps.maxTotalBytes,
      },
    };
  }

  private async head(): Promise<string | null> {
    try {
      return (await this.run(['rev-parse', '-q', '--verify', 'refs/heads/snapshots'])).toString('utf8').trim() || null;
    } catch {
      return null;
    }
  }

  /** What changed from `before` to `after`, per file, with line counts (null: binary). */
  async changes(before: string, after: string): Promise<CheckpointFile[]> {
    const raw = splitZ(await this.run(['diff-tree', '-r', '-z', '--no-renames', '--name-status', before, after]));
    const status = new Map<string, CheckpointFileStatus>();
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const s = raw[i]!;
      status.set(raw[i + 1]!, s === 'A' ? 'added' : s === 'D' ? 'deleted' : 'modified');
    }
    const counts = new Map<string, { added: number | null; removed: number | null }>();
    for (const entry of splitZ(await this.run(['diff-tree', '-r', '-z', '--no-renames', '--numstat', before, after]))) {
      const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(entry);
      if (!m) continue;
      counts.set(m[3]!, {
        added: m[1] === '-' ? null : Number(m[1]),
        removed: m[2] === '-' ? null : Number(m[2]),
      });
    }
    return [...status.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([p, s]) => ({ path: p, status: s, ...(counts.get(p) ?? { added: null, removed: null }) }));
  }

  /** One file's unified diff from `before` to `after` (cut past PATCH_MAX_CHARS). */
  async patch(before: string, after: string, file: string): Promise<{ patch: string; truncated: boolean }> {
    const out = (
      await this.run(['diff-tree', '-p', '--no-renames', '--no-color', '--no-ext-diff', before, after, '--', file])
    ).toString('utf8');
    return out.length > PATCH_MAX_CHARS
      ? { patch: out.slice(0, PATCH_MAX_CHARS), truncated: true }
      : { patch: out, truncated: false };
  }

  /**
   * Makes `files` in the folder what they are in `commit`: written byte for byte (and mode) from
   * it where it has them, removed where it does not. Only these paths are touched.
   */
  async restore(commit: string, files: readonly { path: string; present: boolean }[]): Promise<void> {
    const write = files.filter((f) => f.present).map((f) => f.path);
    const remove = files.filter((f) => !f.present).map((f) => f.path);
    const root = await fs.realpath(this.folder);
    for (const rel of remove) await this.removeInside(root, rel);
    // git refuses to write through a symlinked parent folder (its leading-path check).
    if (write.length > 0)
      await this.run(['checkout', '-f', commit, '--pathspec-from-file=-', '--pathspec-file-nul'], nulList(write));
  }

  private async removeInside(root: string, rel: string): Promise<void> {
    const target = path.join(this.folder, rel);
    let parent: string;
    try {
      parent = await fs.realpath(path.dirname(target));
    } catch {
      return; // its folder is gone: so is the file
    }
    // A parent replaced by a symlink to elsewhere: never delete outside the folder.
    if (parent !== root && !parent.startsWith(root + path.sep)) return;
    const real = path.join(parent, path.basename(target));
    try {
      const st = await fs.lstat(real);
      if (st.isDirectory()) return;
      await fs.rm(real, { force: true });
    } catch {
      return;
    }
    // Folders the removal left empty go too (git keeps no empty folders, so they held only it).
    let dir = parent;
    while (dir !== root && dir.startsWith(root + path.sep)) {
      try {
        await fs.rmdir(dir);
      } catch {
        break;
      }
      dir = path.dirname(dir);
    }
  }
}
