import path from 'node:path';
import {
  AppError,
  type AppEvent,
  type Checkpoint,
  type CheckpointFileDiff,
  type CheckpointSkipped,
} from '@threadline/protocol';
import type { Store } from '@threadline/store';
import { DEFAULT_SNAPSHOT_CAPS, ShadowRepo, gitVersion, type SnapshotCaps } from './shadowGit';
import { statesInFiles } from './truth';

export interface CheckpointOptions {
  /** The git executable (default `git` on PATH). */
  git?: string;
  caps?: Partial<SnapshotCaps>;
}

/** Files a snapshot never holds, even inside a working folder: the app's data folder and database. */
export function appFiles(dataDir: string, dbFile: string): string[] {
  return [dataDir, dbFile, `${dbFile}-wal`, `${dbFile}-shm`, `${dbFile}-journal`];
}

/** How many files' diffs checkpoints.diff returns (a turn that rewrote a whole tree lists the rest). */
const DIFF_FILES_MAX = 200;

/**
 * The runtime's checkpoints (issue 23): a shadow repository per working folder under
 * `<dataDir>/checkpoints`, one git at a time per folder, and the rows in the store.
 */
export class CheckpointService {
  private readonly git: string;
  private readonly caps: SnapshotCaps;
  private readonly root: string;
  private version: Promise<string | null> | null = null;
  /** One git at a time per shadow repository (two sessions may share a folder). */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly repos = new Map<string, ShadowRepo>();

  constructor(
    private readonly store: Store,
    private readonly emit: (e: AppEvent) => void,
    dataDir: string,
    /** Absolute paths no snapshot holds (appFiles). */
    private readonly never: readonly string[],
    opts: CheckpointOptions = {},
  ) {
    this.git = opts.git ?? 'git';
    this.caps = { ...DEFAULT_SNAPSHOT_CAPS, ...opts.caps };
    this.root = path.join(dataDir, 'checkpoints');
  }

  /** Whether git runs here (asked once per runtime). */
  async available(): Promise<boolean> {
    this.version ??= gitVersion(this.git, path.join(this.root, '.home'));
    return (await this.version) !== null;
  }

  private repo(folder: string): ShadowRepo {
    let repo = this.repos.get(folder);
    if (!repo) this.repos.set(folder, (repo = new ShadowRepo(this.git, this.root, folder, this.never)));
    return repo;
  }

  private serial<T>(repo: ShadowRepo, work: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(repo.gitDir) ?? Promise.resolve();
    const next = prev.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(repo.gitDir, settled);
    void settled.then(() => {
      if (this.queues.get(repo.gitDir) === settled) this.queues.delete(repo.gitDir);
    });
    return next;
  }

  snapshot(folder: string, message: string): Promise<{ commit: string; skipped: CheckpointSkipped }> {
    const repo = this.repo(folder);
    return this.serial(repo, () => repo.snapshot(message, this.caps));
  }

  /** After the turn: the second snapshot, and a row when files changed. Null: nothing changed. */
  async record(input: {
    sessionId: string;
    folder: string;
    before: { commit: string; skipped: CheckpointSkipped };
    anchorId: string | null;
    userMessageId: string | null;
  }): Promise<Checkpoint | null> {
    const repo = this.repo(input.folder);
    const after = await this.serial(repo, () => repo.snapshot('after turn', this.caps));
    const files = await this.serial(repo, () => repo.changes(input.before.commit, after.commit));
    if (files.length === 0) return null;
    const skipped = mergeSkipped(input.before.skipped, after.skipped);
    const checkpoint = this.store.checkpoints.add({
      sessionId: input.sessionId,
      anchorId: input.anchorId,
      userMessageId: input.userMessageId,
      folder: input.folder,
      beforeCommit: input.before.commit,
      afterCommit: after.commit,
      files,
      skipped,
    });
    this.emit({ type: 'checkpoint.updated', sessionId: input.sessionId, checkpoint });
    return checkpoint;
  }

  get(checkpointId: string): Checkpoint {
    const c = this.store.checkpoints.get(checkpointId);
    if (!c) throw new AppError('not_found', `No checkpoint with id ${checkpointId}.`);
    return c;
  }

  async diff(checkpointId: string): Promise<{ checkpoint: Checkpoint; files: CheckpointFileDiff[] }> {
    const checkpoint = this.get(checkpointId);
    await this.requireGit();
    const repo = this.repo(checkpoint.folder);
    const files: CheckpointFileDiff[] = [];
    for (const f of checkpoint.files.slice(0, DIFF_FILES_MAX)) {
      const p = await this.serial(repo, () => repo.patch(checkpoint.beforeCommit, checkpoint.afterCommit, f.path));
      files.push({ ...f, binary: f.added === null, ...p });
    }
    return { checkpoint, files };
  }

  /**
   * Undo (`to: 'before'`) or redo (`to: 'after'`): only the files the turn changed are written or
   * removed; the state is stored and announced. The folder is snapshotted first (so what is
   * overwritten stays in the shadow repository); when some of the turn's files changed since
   * (the user or a later turn edited them), nothing is written unless `force`: the answer names them.
   * Afterwards every other checkpoint of the folder is told again whether its changes are still in
   * the files (`overwritten` when a forced undo or redo wrote over them, `applied` when they are back).
   */
  async apply(
    checkpointId: string,
    to: 'before' | 'after',
    force: boolean,
  ): Promise<{ applied: boolean; checkpoint: Checkpoint; changedSince: string[] }> {
    const c = this.get(checkpointId);
    // An overwritten turn's changes are partly gone: both undo and redo may still be asked for.
    if (c.state === (to === 'before' ? 'undone' : 'applied'))
      throw new AppError(
        'conflict',
        to === 'before' ? 'These changes are already undone.' : 'These changes are already in place.',
      );
    await this.requireGit();
    const repo = this.repo(c.folder);
    const [target, expected] = to === 'before' ? [c.beforeCommit, c.afterCommit] : [c.afterCommit, c.beforeCommit];
    const files = c.files.map((f) => ({
      path: f.path,
      present: to === 'before' ? f.status !== 'added' : f.status !== 'deleted',
    }));
    const changedSince = await this.serial(repo, async () => {
      const now = await repo.snapshot(`before ${to === 'before' ? 'undo' : 'redo'} of ${c.id}`, this.caps);
      const ours = new Set(files.map((f) => f.path));
      // A file already as the target has it loses nothing when written again (a redo of an
      // overwritten turn whose other files are still as it left them).
      const offTarget = new Set((await repo.changes(target, now.commit)).map((f) => f.path));
      const since = (await repo.changes(expected, now.commit))
        .map((f) => f.path)
        .filter((p) => ours.has(p) && offTarget.has(p));
      if (since.length === 0 || force) await repo.restore(target, files);
      return since;
    });
    if (changedSince.length > 0 && !force) return { applied: false, checkpoint: c, changedSince };
    const next = this.store.checkpoints.setState(c.id, to === 'before' ? 'undone' : 'applied');
    this.emit({ type: 'checkpoint.updated', sessionId: c.sessionId, checkpoint: next });
    await this.retell(repo, c.folder);
    return { applied: true, checkpoint: this.get(c.id), changedSince };
  }

  /**
   * Every checkpoint of the folder that is not undone is `applied` when its changes are in the
   * files now, else `overwritten` (truth.ts); the ones whose state changes are stored and announced.
   */
  private async retell(repo: ShadowRepo, folder: string): Promise<void> {
    const all = this.store.checkpoints.listFolder(folder);
    if (!all.some((c) => c.state !== 'undone')) return;
    const states = await this.serial(repo, async () => {
      const now = await repo.snapshot('after undo or redo', this.caps);
      return statesInFiles(all, now.commit, (queries) => repo.blobs(queries));
    });
    for (const c of all) {
      const state = states.get(c.id);
      if (state === undefined || state === c.state) continue;
      const next = this.store.checkpoints.setState(c.id, state);
      this.emit({ type: 'checkpoint.updated', sessionId: c.sessionId, checkpoint: next });
    }
  }

  private async requireGit(): Promise<void> {
    if (!(await this.available()))
      throw new AppError('conflict', 'git is not installed, so file changes cannot be shown or undone.');
  }
}

function mergeSkipped(a: CheckpointSkipped, b: CheckpointSkipped): CheckpointSkipped {
  return {
    tooLarge: [...new Set([...a.tooLarge, ...b.tooLarge])],
    overBudget: Math.max(a.overBudget, b.overBudget),
    nestedRepos: [...new Set([...a.nestedRepos, ...b.nestedRepos])],
    maxFileBytes: b.maxFileBytes,
    maxTotalBytes: b.maxTotalBytes,
  };
}
