import { randomUUID } from 'node:crypto';
import { promises as fs, rmSync } from 'node:fs';
import path from 'node:path';
import type { AppEvent, HeldFile, HeldKeepFailure } from '@threadline/protocol';
import type { Store } from '@threadline/store';
import { lstatInside, moveInside } from '../workspace/noFollow';
import type { Leftover } from './leftovers';

/** How many entries of a held folder are counted for the card (the rest is "more"). */
const COUNT_MAX = 10_000;

/**
 * Files held for the user (issue 34): what a sandboxed command left that makes code run later is
 * moved out of the working folder into `<dataDir>/held/<session>/<id>` (the data folder, which
 * no sandboxed command sees), recorded in the store (`held_files`), and announced
 * (`held.updated`); the user keeps them (put back where they were) or discards them (deleted).
 * Nothing is followed on the way: the folder side goes through real folders only
 * (workspace/noFollow.ts), and what is put back never lands behind a link.
 */
export class HeldFiles {
  private readonly root: string;
  /** Where a guarded command's time stamps go (sandbox/scan.ts takeStamp). */
  readonly stampDir: string;
  /** Never scanned as part of a working folder: the app's own data. */
  readonly skip: readonly string[];

  constructor(
    private readonly store: Store,
    private readonly emit: (e: AppEvent) => void,
    dataDir: string,
  ) {
    this.root = path.join(dataDir, 'held');
    this.stampDir = path.join(dataDir, 'held-stamps');
    this.skip = [dataDir];
    // Stamps of commands a previous run did not see end (no command runs yet).
    rmSync(this.stampDir, { recursive: true, force: true });
  }

  private placeOf(f: Pick<HeldFile, 'sessionId' | 'id'>): string {
    return path.join(this.root, f.sessionId.replace(/[^A-Za-z0-9_-]/g, '_'), f.id);
  }

  list(sessionId: string): HeldFile[] {
    return this.store.held.list(sessionId);
  }

  /** Takes `items` out of `folder` (relative paths) and records them; the ones taken, in order. */
  async hold(sessionId: string, folder: string, items: readonly Leftover[]): Promise<HeldFile[]> {
    const held: HeldFile[] = [];
    for (const item of items) {
      const st = await lstatInside(folder, item.path);
      if (!st) continue;
      const id = randomUUID();
      const dest = this.placeOf({ sessionId, id });
      await fs.mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
      const target = st.isSymbolicLink() ? await fs.readlink(path.join(folder, item.path)).catch(() => null) : null;
      const moved = await moveInside(folder, item.path, dest);
      if (!moved) continue;
      const entries = st.isDirectory() ? await countEntries(dest) : null;
      held.push(
        this.store.held.add({
          id,
          sessionId,
          folder,
          path: item.path,
          kind: item.kind,
          reason: item.reason,
          entries,
          target,
          keepable: moved.copied,
        }),
      );
    }
    if (held.length > 0) this.announce(sessionId);
    return held;
  }

  private announce(sessionId: string): void {
    this.emit({ type: 'held.updated', sessionId, files: this.store.held.list(sessionId) });
  }

  /**
   * Keeps (puts back) or discards the session's held files (`ids`: some of them). A file that
   * cannot be put back (something is at its place now, its folder is gone, a FIFO moved across
   * file systems) stays held and is named in `failed`.
   */
  async resolve(
    sessionId: string,
    decision: 'keep' | 'discard',
    ids?: readonly string[],
  ): Promise<{ done: HeldFile[]; failed: HeldKeepFailure[] }> {
    const chosen = this.store.held.list(sessionId).filter((f) => !ids || ids.includes(f.id));
    const done: HeldFile[] = [];
    const failed: HeldKeepFailure[] = [];
    for (const f of chosen) {
      const place = this.placeOf(f);
      if (decision === 'discard') {
        await fs.rm(place, { recursive: true, force: true });
        this.store.held.remove(f.id);
        done.push(f);
        continue;
      }
      const why = f.keepable ? await putBack(f, place) : 'not_keepable';
      if (why === null) {
        this.store.held.remove(f.id);
        done.push(f);
      } else failed.push({ path: f.path, why });
    }
    if (chosen.length > 0) this.announce(sessionId);
    return { done, failed };
  }

  /**
   * Held copies of sessions that are gone (deleted: their rows went with them), removed at
   * start-up. A session that exists keeps its folder: a hold may be on its way into it.
   */
  async sweep(): Promise<void> {
    let folders: string[];
    try {
      folders = await fs.readdir(this.root);
    } catch {
      return;
    }
    const live = new Set(this.store.sessions.list().map((s) => s.id.replace(/[^A-Za-z0-9_-]/g, '_')));
    for (const f of folders) if (!live.has(f)) await fs.rm(path.join(this.root, f), { recursive: true, force: true });
  }
}

/**
 * Moves a held file back to its place: its folders are created where missing (never through a
 * link), and nothing is overwritten. Null when done, else why not.
 */
async function putBack(f: HeldFile, held: string): Promise<HeldKeepFailure['why'] | null> {
  try {
    if (!(await fs.lstat(f.folder)).isDirectory()) return 'folder_gone';
  } catch {
    return 'folder_gone';
  }
  const segs = f.path.split('/');
  let dir = f.folder;
  for (const part of segs.slice(0, -1)) {
    dir = path.join(dir, part);
    try {
      if (!(await fs.lstat(dir)).isDirectory()) return 'occupied';
    } catch {
      await fs.mkdir(dir);
    }
  }
  const place = path.join(f.folder, ...segs);
  if ((await lstatInside(f.folder, f.path)) !== null) return 'occupied';
  try {
    await fs.rename(held, place);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fs.cp(held, place, {
      recursive: true,
      verbatimSymlinks: true,
      preserveTimestamps: true,
      errorOnExist: true,
      force: false,
    });
    await fs.rm(held, { recursive: true, force: true });
  }
  return null;
}

async function countEntries(dir: string): Promise<number> {
  let n = 0;
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (++n >= COUNT_MAX) return;
      if (e.isDirectory()) await walk(path.join(d, e.name));
    }
  };
  await walk(dir);
  return n;
}
