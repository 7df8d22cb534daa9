import {
  CheckpointFileSchema,
  CheckpointSkippedSchema,
  CheckpointStateSchema,
  type Checkpoint,
} from '@threadline/protocol';
import * as z from 'zod';
import type { CheckpointsRepo } from '../checkpointTypes';
import { StoreError } from '../types';
import { json, parseJson, type RepoContext } from './context';

interface CheckpointRow {
  id: string;
  session_id: string;
  anchor_id: string | null;
  user_message_id: string | null;
  folder: string;
  before_commit: string;
  after_commit: string;
  files_changed: number;
  files: string;
  skipped: string;
  state: string;
  created_at: number;
  updated_at: number;
}

const FilesSchema = z.array(CheckpointFileSchema);

const toCheckpoint = (r: CheckpointRow): Checkpoint => ({
  id: r.id,
  sessionId: r.session_id,
  anchorId: r.anchor_id,
  userMessageId: r.user_message_id,
  folder: r.folder,
  beforeCommit: r.before_commit,
  afterCommit: r.after_commit,
  filesChanged: r.files_changed,
  files: FilesSchema.parse(parseJson(r.files)),
  skipped: CheckpointSkippedSchema.parse(parseJson(r.skipped)),
  state: CheckpointStateSchema.parse(r.state),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function createCheckpointsRepo(ctx: RepoContext): CheckpointsRepo {
  const { db } = ctx;
  const insert = db.prepare(
    `INSERT INTO checkpoints (id, session_id, anchor_id, user_message_id, folder, before_commit, after_commit,
       files_changed, files, skipped, state, created_at, updated_at)
     VALUES (@id, @session_id, @anchor_id, @user_message_id, @folder, @before_commit, @after_commit,
       @files_changed, @files, @skipped, 'applied', @now, @now)`,
  );
  const getOne = db.prepare<[string], CheckpointRow>('SELECT * FROM checkpoints WHERE id = ?');
  const listSession = db.prepare<[string], CheckpointRow>(
    'SELECT * FROM checkpoints WHERE session_id = ? ORDER BY created_at, rowid',
  );
  const listFolder = db.prepare<[string], CheckpointRow>(
    'SELECT * FROM checkpoints WHERE folder = ? ORDER BY created_at, rowid',
  );
  const updateState = db.prepare<[string, number, string]>(
    'UPDATE checkpoints SET state = ?, updated_at = ? WHERE id = ?',
  );
  const get = (id: string): Checkpoint | null => {
    const r = getOne.get(id);
    return r ? toCheckpoint(r) : null;
  };
  return {
    add(c) {
      const id = c.id ?? ctx.newId();
      insert.run({
        id,
        session_id: c.sessionId,
        anchor_id: c.anchorId,
        user_message_id: c.userMessageId,
        folder: c.folder,
        before_commit: c.beforeCommit,
        after_commit: c.afterCommit,
        files_changed: c.files.length,
        files: json(FilesSchema.parse(c.files)),
        skipped: json(CheckpointSkippedSchema.parse(c.skipped)),
        now: ctx.now(),
      });
      return get(id)!;
    },
    get,
    list: (sessionId) => listSession.all(sessionId).map(toCheckpoint),
    listFolder: (folder) => listFolder.all(folder).map(toCheckpoint),
    setState(id, state) {
      const r = updateState.run(CheckpointStateSchema.parse(state), ctx.now(), id);
      if (r.changes === 0) throw new StoreError('not_found', `No checkpoint with id ${id}.`);
      return get(id)!;
    },
  };
}
