import { HeldKindSchema, HeldReasonSchema, type HeldFile } from '@threadline/protocol';
import type { HeldFilesRepo } from '../heldTypes';
import type { RepoContext } from './context';

interface HeldRow {
  id: string;
  session_id: string;
  folder: string;
  path: string;
  kind: string;
  reason: string;
  entries: number | null;
  target: string | null;
  keepable: number;
  created_at: number;
}

const toHeld = (r: HeldRow): HeldFile => ({
  id: r.id,
  sessionId: r.session_id,
  folder: r.folder,
  path: r.path,
  kind: HeldKindSchema.parse(r.kind),
  reason: HeldReasonSchema.parse(r.reason),
  entries: r.entries,
  target: r.target,
  keepable: r.keepable === 1,
  createdAt: r.created_at,
});

/** Files held for the user (issue 34): what a sandboxed command left that makes code run later. */
export function createHeldFilesRepo(ctx: RepoContext): HeldFilesRepo {
  const { db } = ctx;
  const insert = db.prepare(
    `INSERT INTO held_files (id, session_id, folder, path, kind, reason, entries, target, keepable, created_at)
     VALUES (@id, @session_id, @folder, @path, @kind, @reason, @entries, @target, @keepable, @now)`,
  );
  const getOne = db.prepare<[string], HeldRow>('SELECT * FROM held_files WHERE id = ?');
  const listSession = db.prepare<[string], HeldRow>(
    'SELECT * FROM held_files WHERE session_id = ? ORDER BY created_at, rowid',
  );
  const del = db.prepare<[string]>('DELETE FROM held_files WHERE id = ?');
  return {
    add(f) {
      const id = f.id ?? ctx.newId();
      insert.run({
        id,
        session_id: f.sessionId,
        folder: f.folder,
        path: f.path,
        kind: HeldKindSchema.parse(f.kind),
        reason: HeldReasonSchema.parse(f.reason),
        entries: f.entries,
        target: f.target,
        keepable: f.keepable ? 1 : 0,
        now: ctx.now(),
      });
      return toHeld(getOne.get(id)!);
    },
    list: (sessionId) => listSession.all(sessionId).map(toHeld),
    remove(id) {
      del.run(id);
    },
  };
}
