import * as z from 'zod';
import type { SessionSummary } from '@threadline/protocol';
import { StoreError, type SessionsRepo } from '../types';
import { parseInput, type RepoContext } from './context';

interface SessionRow {
  id: string;
  title: string;
  created_at: number;
  updated_at: number;
  message_count: number;
  working_folder: string | null;
  profile_id: string | null;
  model: string | null;
  parent_id: string | null;
}

const toSummary = (r: SessionRow): SessionSummary => ({
  id: r.id,
  title: r.title,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  messageCount: r.message_count,
  // '' = not chosen (a session from before working folders): the runtime fills in its default.
  workingFolder: r.working_folder ?? '',
  profileId: r.profile_id,
  model: r.model,
  // Only a helper's session has one (the delegate tool): a chat's summary stays as it was.
  ...(r.parent_id !== null ? { parentId: r.parent_id } : {}),
});

const TitleSchema = z.string().trim().max(200);
const ModelSchema = z.string().trim().min(1).max(200);
/** The runtime has resolved and checked it; the store only keeps it. */
const FolderSchema = z.string().min(1).max(4096);
/** The same bound as the route's (protocol SESSION_PROMPT_MAX). */
const SystemPromptSchema = z.string().max(20_000);

export function createSessionsRepo(ctx: RepoContext): SessionsRepo {
  const { db } = ctx;
  const insert = db.prepare<[string, string, number, number, string | null]>(
    'INSERT INTO sessions (id, title, created_at, updated_at, working_folder) VALUES (?, ?, ?, ?, ?)',
  );
  const folderStmt = db.prepare<[string, number, string]>(
    'UPDATE sessions SET working_folder = ?, updated_at = ? WHERE id = ?',
  );
  const getOne = db.prepare<[string], SessionRow>(
    'SELECT id, title, created_at, updated_at, message_count, working_folder, profile_id, model, parent_id FROM sessions WHERE id = ?',
  );
  // rowid breaks ties between sessions touched in the same millisecond: newer row first. A
  // helper's session (the delegate tool) belongs to its parent's chat, not to the list.
  const listAll = db.prepare<[], SessionRow>(
    'SELECT id, title, created_at, updated_at, message_count, working_folder, profile_id, model, parent_id FROM sessions WHERE parent_id IS NULL ORDER BY updated_at DESC, rowid DESC',
  );
  const renameStmt = db.prepare<[string, number, string]>('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?');
  const touchStmt = db.prepare<[number, string]>('UPDATE sessions SET updated_at = ? WHERE id = ?');
  const modelStmt = db.prepare<[string | null, string | null, string]>(
    'UPDATE sessions SET profile_id = ?, model = ? WHERE id = ?',
  );
  const deleteStmt = db.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
  // The attachments a session's messages refer to (meta.attachments[].id).
  const attachmentsOf = db.prepare<[string], { id: string }>(
    `SELECT DISTINCT json_extract(a.value, '$.id') AS id
       FROM messages m, json_each(m.meta, '$.attachments') a
      WHERE m.session_id = ? AND m.meta IS NOT NULL AND json_valid(m.meta)`,
  );
  // …dropped once no message of any other session refers to them.
  const dropUnreferenced = db.prepare<[string, string]>(
    `DELETE FROM attachments WHERE id = ? AND NOT EXISTS (
       SELECT 1 FROM messages m, json_each(m.meta, '$.attachments') a
        WHERE m.meta IS NOT NULL AND json_valid(m.meta) AND m.session_id <> ? AND json_extract(a.value, '$.id') = attachments.id)`,
  );
  const deleteTx = db.transaction((id: string): boolean => {
    const ids = attachmentsOf.all(id).map((r) => r.id);
    if (deleteStmt.run(id).changes === 0) return false;
    for (const a of ids) dropUnreferenced.run(a, id);
    return true;
  });
  const promptSet = db.prepare<[string | null, string]>('UPDATE sessions SET system_prompt = ? WHERE id = ?');

  const mustGet = (id: string): SessionSummary => {
    const r = getOne.get(id);
    if (!r) throw new StoreError('not_found', `Session ${id} does not exist.`);
    return toSummary(r);
  };

  return {
    create(title?: string, workingFolder?: string | null): SessionSummary {
      const t = parseInput(TitleSchema, title ?? '', 'session title');
      const folder = workingFolder == null ? null : parseInput(FolderSchema, workingFolder, 'working folder');
      const id = ctx.newId();
      const now = ctx.now();
      insert.run(id, t, now, now, folder);
      return mustGet(id);
    },
    setWorkingFolder(id: string, folder: string): SessionSummary {
      const f = parseInput(FolderSchema, folder, 'working folder');
      if (folderStmt.run(f, ctx.now(), id).changes === 0)
        throw new StoreError('not_found', `Session ${id} does not exist.`);
      return mustGet(id);
    },
    list: () => listAll.all().map(toSummary),
    get(id: string): SessionSummary | null {
      const r = getOne.get(id);
      return r ? toSummary(r) : null;
    },
    rename(id: string, title: string): SessionSummary {
      const t = parseInput(TitleSchema.min(1), title, 'session title');
      if (renameStmt.run(t, ctx.now(), id).changes === 0)
        throw new StoreError('not_found', `Session ${id} does not exist.`);
      return mustGet(id);
    },
    delete(id: string): void {
      // ON DELETE CASCADE removes messages, compactions, memory rows and approvals in the same
      // statement; the attachments only this session used go in the same transaction.
      if (!deleteTx.immediate(id)) throw new StoreError('not_found', `Session ${id} does not exist.`);
    },
    setModel(id: string, profileId: string | null, model: string | null): SessionSummary {
      const m = model === null ? null : parseInput(ModelSchema, model, 'model');
      if (modelStmt.run(profileId, m, id).changes === 0)
        throw new StoreError('not_found', `Session ${id} does not exist.`);
      return mustGet(id);
    },
    setSystemPrompt(id: string, text: string | null): void {
      const t = text === null ? null : parseInput(SystemPromptSchema, text, 'system prompt');
      // Blank is none: nothing is added to the system prompt.
      if (promptSet.run(t === null || t.trim() === '' ? null : t, id).changes === 0)
        throw new StoreError('not_found', `Session ${id} does not exist.`);
    },
    touch(id: string): void {
      if (touchStmt.run(ctx.now(), id).changes === 0)
        throw new StoreError('not_found', `Session ${id} does not exist.`);
    },
  };
}
