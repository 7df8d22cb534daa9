import * as z from 'zod';
import { HelperStatusSchema, type HelperStatus } from '@threadline/protocol';
import type { HelperEnd, HelperToolCalls, HelpersRepo, NewHelper, StoredHelper } from '../helperTypes';
import { StoreError } from '../types';
import { json, parseInput, parseJson, type RepoContext } from './context';

interface HelperRow {
  session_id: string;
  parent_session_id: string;
  tool_call_id: string;
  idx: number;
  task: string;
  role: string;
  model: string;
  tools: string;
  status: string;
  report: string | null;
  error: string | null;
  returned_tokens: number | null;
  created_at: number;
  ended_at: number | null;
}

const ToolsSchema = z.array(z.string());

const toHelper = (r: HelperRow): StoredHelper => ({
  id: r.session_id,
  parentSessionId: r.parent_session_id,
  toolCallId: r.tool_call_id,
  index: r.idx,
  task: r.task,
  role: r.role,
  model: r.model,
  tools: ToolsSchema.catch([]).parse(parseJson(r.tools)),
  status: HelperStatusSchema.catch('interrupted').parse(r.status),
  report: r.report,
  error: r.error,
  returnedTokens: r.returned_tokens,
  createdAt: r.created_at,
  endedAt: r.ended_at,
});

const NewHelperSchema = z.object({
  toolCallId: z.string().min(1).max(200),
  index: z.number().int().nonnegative(),
  task: z.string().min(1).max(20_000),
  role: z.string().min(1).max(40),
  model: z.string().min(1).max(200),
  tools: z.array(z.string().min(1).max(200)).max(200),
});

const HelperEndSchema = z.object({
  status: HelperStatusSchema.exclude(['queued', 'running']),
  report: z.string().nullable(),
  error: z.string().max(4000).nullable(),
  returnedTokens: z.number().int().nonnegative().nullable(),
});

/** A helper's session is titled after its task (its first line, cut). */
function titleOf(task: string): string {
  const line = task.trim().split('\n')[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function createHelpersRepo(ctx: RepoContext): HelpersRepo {
  const { db } = ctx;
  const COLUMNS =
    'session_id, parent_session_id, tool_call_id, idx, task, role, model, tools, status, report, error, returned_tokens, created_at, ended_at';
  const parentOk = db.prepare<[string], { id: string }>('SELECT id FROM sessions WHERE id = ? AND parent_id IS NULL');
  const insertSession = db.prepare<[string, string, number, number, string, string]>(
    'INSERT INTO sessions (id, title, created_at, updated_at, working_folder, parent_id) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const insert = db.prepare(
    `INSERT INTO helpers (${COLUMNS}) VALUES (@session_id, @parent_session_id, @tool_call_id, @idx, @task, @role,
       @model, @tools, 'queued', NULL, NULL, NULL, @created_at, NULL)`,
  );
  const getOne = db.prepare<[string], HelperRow>(`SELECT ${COLUMNS} FROM helpers WHERE session_id = ?`);
  const byParent = db.prepare<[string], HelperRow>(
    `SELECT ${COLUMNS} FROM helpers WHERE parent_session_id = ? ORDER BY created_at, idx, rowid`,
  );
  const setStatus = db.prepare<[string, string]>(
    "UPDATE helpers SET status = ? WHERE session_id = ? AND status IN ('queued', 'running')",
  );
  const end = db.prepare(
    `UPDATE helpers SET status = @status, report = @report, error = @error, returned_tokens = @returned, ended_at = @at
     WHERE session_id = @id`,
  );
  const open = db.prepare<[], HelperRow>(
    `SELECT ${COLUMNS} FROM helpers WHERE status IN ('queued', 'running') ORDER BY created_at, idx`,
  );
  const interrupt = db.prepare<[number]>(
    "UPDATE helpers SET status = 'interrupted', ended_at = ? WHERE status IN ('queued', 'running')",
  );
  // What each helper called: the names in its assistant messages' tool_calls, first called first.
  // (Grouped by the expression: a bare `name` there would be messages.name, the same for all.)
  const calls = db.prepare<[string], { id: string; name: string | null; n: number }>(
    `SELECT m.session_id AS id, json_extract(tc.value, '$.function.name') AS name, COUNT(*) AS n
       FROM helpers h JOIN messages m ON m.session_id = h.session_id, json_each(m.tool_calls) tc
      WHERE h.parent_session_id = ? AND m.role = 'assistant' AND m.tool_calls IS NOT NULL AND json_valid(m.tool_calls)
      GROUP BY m.session_id, json_extract(tc.value, '$.function.name') ORDER BY MIN(m.seq), MIN(tc.key)`,
  );

  const mustGet = (id: string): StoredHelper => {
    const r = getOne.get(id);
    if (!r) throw new StoreError('not_found', `Helper ${id} does not exist.`);
    return toHelper(r);
  };

  const createTx = db.transaction((parentSessionId: string, folder: string, helpers: NewHelper[]): StoredHelper[] => {
    if (!parentOk.get(parentSessionId))
      throw new StoreError('not_found', `Session ${parentSessionId} does not exist or is itself a helper.`);
    const now = ctx.now();
    return helpers.map((h) => {
      const id = ctx.newId();
      insertSession.run(id, titleOf(h.task), now, now, folder, parentSessionId);
      insert.run({
        session_id: id,
        parent_session_id: parentSessionId,
        tool_call_id: h.toolCallId,
        idx: h.index,
        task: h.task,
        role: h.role,
        model: h.model,
        tools: json(h.tools),
        created_at: now,
      });
      return mustGet(id);
    });
  });

  return {
    create(parentSessionId, folder, helpers) {
      const valid = parseInput(z.array(NewHelperSchema).min(1).max(5), helpers, 'helpers');
      const where = parseInput(z.string().min(1).max(4096), folder, 'working folder');
      return createTx.immediate(parentSessionId, where, valid);
    },
    get: (id) => {
      const r = getOne.get(id);
      return r ? toHelper(r) : null;
    },
    list: (parentSessionId) => byParent.all(parentSessionId).map(toHelper),
    toolCalls(parentSessionId) {
      const out = new Map<string, HelperToolCalls>();
      for (const r of calls.all(parentSessionId)) {
        if (r.name === null) continue;
        let list = out.get(r.id);
        if (!list) out.set(r.id, (list = []));
        list.push({ name: r.name, count: r.n });
      }
      return out;
    },
    started(id) {
      setStatus.run('running' satisfies HelperStatus, id);
      return mustGet(id);
    },
    finish(id, input: HelperEnd) {
      const e = parseInput(HelperEndSchema, input, 'helper end');
      const changes = end.run({
        id,
        status: e.status,
        report: e.report,
        error: e.error,
        returned: e.returnedTokens,
        at: ctx.now(),
      }).changes;
      if (changes === 0) throw new StoreError('not_found', `Helper ${id} does not exist.`);
      return mustGet(id);
    },
    interruptOpen() {
      return db
        .transaction(() => {
          const rows = open.all().map(toHelper);
          interrupt.run(ctx.now());
          return rows.map((h) => ({ ...h, status: 'interrupted' as const }));
        })
        .immediate();
    },
  };
}
