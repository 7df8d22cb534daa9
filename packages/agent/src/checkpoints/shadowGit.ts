import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { CheckpointFile, CheckpointFileStatus, CheckpointSkipped } from '@threadline/protocol';
import { lstatInside, mapLimit, readInside, realParent, removeInside } from '../workspace/noFollow';
import { cleanEnv, nulList, runGit, splitZ } from './git';
import { parseListing, planSnapshot, type SnapshotCaps } from './snapshotPlan';

export { DEFAULT_SNAPSHOT_CAPS, type SnapshotCaps } from './snapshotPlan';
export { GitError, gitVersion } from './git';

/**
 * A shadow git repository of one working folder: GIT_DIR in the app's data folder, the folder
 * itself as GIT_WORK_TREE. Nothing is written inside the folder, the folder's own `.git` is never
 * read as a repository (git skips any `.git` in a work tree; only its `info/exclude` is copied),
 * and every git runs with a clean environment (git.ts) and attributes that turn off every filter
 * and line-ending conversion, so a config or `.gitattributes` planted in the folder cannot run code
 * or change bytes. The folder is read and written on real paths only (workspace/noFollow.ts): a
 * folder a command replaced by a link is neither read through nor written through.
 */

/** A file's diff longer than this is cut (the user reads it in the chat). */
const PATCH_MAX_CHARS = 64 * 1024;
/** lstat calls in flight at once while a snapshot looks at files. */
const STAT_CONCURRENCY = 32;
/** The lines appended to the config `git init` wrote: ours, whatever the defaults. */
const CONFIG_MARK = '# Threadline checkpoints';
const OUR_CONFIG = `${CONFIG_MARK}
[core]
\tbare = false
\tautocrlf = false
\thooksPath = /dev/null
\tfsmonitor = false
\tsymlinks = true
[gc]
\tauto = 0
[commit]
\tgpgSign = false
`;
/** Highest precedence: no filter, no line-ending or encoding conversion, whatever the folder says. */
const ATTRIBUTES = '* -text -filter -ident -working-tree-encoding -export-subst\n';

export interface Snapshot {
  commit: string;
  skipped: CheckpointSkipped;
}

/** What this process knows of the shadow index (the runtime is the repository's only writer). */
interface IndexState {
  /** Every path the index holds, with its size when last seen. */
  entries: Map<string, number>;
  /** The snapshots ref, and the tree of that commit. */
  head: string | null;
  headTree: string | null;
  /** The index may differ from headTree (just loaded, or a restore wrote into it). */
  dirty: boolean;
}

/** Where a folder's shadow repository lives: `<root>/<sha256 of the folder's path, 16 hex>`. */
export function shadowDirFor(root: string, folder: string): string {
  return path.join(root, createHash('sha256').update(folder).digest('hex').slice(0, 16));
}

export class ShadowRepo {
  readonly gitDir: string;
  private readonly env: NodeJS.ProcessEnv;
  private configured = false;
  private state: IndexState | null = null;
  /** The info files as last written (rewritten only when they change). */
  private written = { attributes: '', exclude: '' };

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

  /**
   * Creates the repository on first use (our config, no hooks) and writes its info files: our
   * attributes, and an exclude file of the folder repository's own `info/exclude` (copied again
   * before each snapshot: it may change) plus the app's own files. Answers whether the exclude
   * rules changed since the last call.
   */
  async ensure(): Promise<boolean> {
    if (!this.configured || !existsSync(path.join(this.gitDir, 'HEAD'))) await this.configure();
    await fs.mkdir(path.join(this.gitDir, 'info'), { recursive: true });
    if (this.written.attributes !== ATTRIBUTES) {
      await fs.writeFile(path.join(this.gitDir, 'info', 'attributes'), ATTRIBUTES);
      this.written.attributes = ATTRIBUTES;
    }
    const own = (await readInside(this.folder, path.join('.git', 'info', 'exclude'), 1024 * 1024)) ?? '';
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
    const exclude = `${own}\n${ours.join('\n')}\n`;
    if (exclude === this.written.exclude) return false;
    await fs.writeFile(path.join(this.gitDir, 'info', 'exclude'), exclude);
    this.written.exclude = exclude;
    return true;
  }

  private async configure(): Promise<void> {
    await fs.mkdir(this.neutralHome, { recursive: true });
    await fs.writeFile(path.join(this.neutralHome, 'empty-gitconfig'), '');
    if (!existsSync(path.join(this.gitDir, 'HEAD'))) {
      await fs.mkdir(this.gitDir, { recursive: true });
      await this.run(['init', '-q']);
      await fs.writeFile(path.join(this.gitDir, 'description'), `Threadline checkpoints of ${this.folder}\n`);
      await fs.rm(path.join(this.gitDir, 'hooks'), { recursive: true, force: true });
      this.state = null;
    }
    const config = path.join(this.gitDir, 'config');
    if (!(await fs.readFile(config, 'utf8')).includes(CONFIG_MARK)) await fs.appendFile(config, OUR_CONFIG);
    this.configured = true;
  }

  /** The index as this process knows it, read once: its paths with their sizes, and the ref. */
  private async load(): Promise<IndexState> {
    if (this.state) return this.state;
    const paths = splitZ(await this.run(['ls-files', '-z', '--cached']));
    const known = new Map<string, boolean>();
    const sizes = await mapLimit(
      paths,
      STAT_CONCURRENCY,
      async (p) => (await lstatInside(this.folder, p, known))?.size,
    );
    const entries = new Map<string, number>();
    paths.forEach((p, i) => entries.set(p, sizes[i] ?? 0));
    let head: string | null = null;
    let headTree: string | null = null;
    try {
      const ids = (await this.run(['log', '-1', '--format=%H %T', 'refs/heads/snapshots'])).toString('utf8').trim();
      [head = null, headTree = null] = ids.split(' ');
    } catch {
      // no snapshot yet
    }
    this.state = { entries, head, headTree, dirty: true };
    return this.state;
  }

  /**
   * Index entries beneath a folder that is no longer reached through real folders (a command
   * replaced `sub/` by a link to elsewhere): git must neither read nor hash through it.
   */
  private async linkedAway(entries: ReadonlyMap<string, number>): Promise<string[]> {
    const known = new Map<string, boolean>();
    const dirs = [...new Set([...entries.keys()].map((p) => path.dirname(p)).filter((d) => d !== '.'))];
    const real = await mapLimit(
      dirs,
      STAT_CONCURRENCY,
      async (d) => (await realParent(this.folder, path.join(d, 'x'), known)) !== null,
    );
    const bad = dirs.filter((_, i) => !real[i]).map((d) => d + '/');
    return bad.length === 0 ? [] : [...entries.keys()].filter((p) => bad.some((d) => p.startsWith(d)));
  }

  /**
   * Records the folder's files (what .gitignore and the caps let in) as a commit. Incremental:
   * only files git sees changed since the last snapshot are read; when nothing changed, the last
   * commit is the answer.
   */
  async snapshot(message: string, caps: SnapshotCaps): Promise<Snapshot> {
    const excludeChanged = await this.ensure();
    const st = await this.load();
    const linked = await this.linkedAway(st.entries);
    if (linked.length > 0) {
      await this.run(['update-index', '--force-remove', '-z', '--stdin'], nulList(linked));
      for (const p of linked) st.entries.delete(p);
      st.dirty = true;
    }
    const listing = parseListing(
      splitZ(
        await this.run([
          'ls-files',
          '-z',
          '-t',
          '--cached',
          '--others',
          '--modified',
          '--deleted',
          '--exclude-standard',
        ]),
      ),
    );
    // Index entries a changed .gitignore (or exclude) now ignores.
    const touched = [...listing.changed, ...listing.gone, ...listing.others];
    const ignored =
      excludeChanged || touched.some((p) => path.basename(p) === '.gitignore')
        ? new Set(splitZ(await this.run(['ls-files', '-z', '--cached', '--ignored', '--exclude-standard'])))
        : new Set<string>();
    const known = new Map<string, boolean>();
    const plan = await planSnapshot({
      listing,
      entries: st.entries,
      ignored,
      caps,
      stat: (rel) => lstatInside(this.folder, rel, known),
      statAll: (items, fn) => mapLimit(items, STAT_CONCURRENCY, fn),
    });
    if (plan.update.length > 0)
      await this.run(['update-index', '--add', '--remove', '-z', '--stdin'], nulList(plan.update));
    if (plan.forceRemove.length > 0)
      await this.run(['update-index', '--force-remove', '-z', '--stdin'], nulList(plan.forceRemove));
    st.entries = plan.entries;
    const changed = st.dirty || plan.update.length > 0 || plan.forceRemove.length > 0;
    if (!changed && st.head !== null) return { commit: st.head, skipped: plan.skipped };
    const tree = (await this.run(['write-tree'])).toString('utf8').trim();
    if (tree !== st.headTree || st.head === null) {
      const commit = (
        await this.run(['commit-tree', tree, ...(st.head !== null ? ['-p', st.head] : []), '-m', message])
      )
        .toString('utf8')
        .trim();
      // One ref keeps every snapshot reachable (gc is off too).
      await this.run(['update-ref', 'refs/heads/snapshots', commit]);
      st.head = commit;
      st.headTree = tree;
    }
    st.dirty = false;
    return { commit: st.head, skipped: plan.skipped };
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
   * The object id of each `commit:path` asked for (null: no such file there), in one git call.
   * A path with a line break cannot be asked this way: null.
   */
  async blobs(queries: readonly string[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    const ask = [...new Set(queries)].filter((q) => !q.includes('\n'));
    if (ask.length > 0) {
      const lines = splitLines(
        await this.run(['cat-file', '--batch-check=%(objectname) %(objecttype)'], Buffer.from(ask.join('\n') + '\n')),
      );
      ask.forEach((q, i) => {
        const m = /^([0-9a-f]{40,64}) (blob|commit)$/.exec(lines[i] ?? '');
        // A gitlink or a link is an entry too; only "missing" means absent.
        out.set(q, m ? m[1]! : null);
      });
    }
    for (const q of queries) if (!out.has(q)) out.set(q, null);
    return out;
  }

  /**
   * Makes `files` in the folder what they are in `commit`: written byte for byte (and mode) from
   * it where it has them, removed where it does not. Only these paths are touched, and only
   * through real folders: a removal never goes through a link, and git's checkout replaces a
   * link where a folder should be by that folder (it never writes through it).
   */
  async restore(commit: string, files: readonly { path: string; present: boolean }[]): Promise<void> {
    const write = files.filter((f) => f.present).map((f) => f.path);
    const remove = files.filter((f) => !f.present).map((f) => f.path);
    for (const rel of remove) await this.removeFile(rel);
    if (write.length === 0) return;
    await this.run(['checkout', '-f', commit, '--pathspec-from-file=-', '--pathspec-file-nul'], nulList(write));
    // The checkout wrote these entries into the index too: it no longer matches the last commit.
    const st = this.state;
    if (!st) return;
    st.dirty = true;
    const sizes = await mapLimit(write, STAT_CONCURRENCY, async (p) => (await lstatInside(this.folder, p))?.size);
    write.forEach((p, i) => st.entries.set(p, sizes[i] ?? 0));
  }

  /** Removes a file of a turn (never a folder), then the folders that held only it. */
  private async removeFile(rel: string): Promise<void> {
    const st = await lstatInside(this.folder, rel);
    if (st === null || st.isDirectory()) return;
    await removeInside(this.folder, rel);
    // Folders the removal left empty go too (git keeps no empty folders, so they held only it).
    for (let dir = path.dirname(rel); dir !== '.' && dir !== ''; dir = path.dirname(dir)) {
      try {
        await fs.rmdir(path.join(this.folder, dir));
      } catch {
        break;
      }
    }
  }
}

function splitLines(out: Buffer): string[] {
  return out
    .toString('utf8')
    .split('\n')
    .filter((s) => s !== '');
}
