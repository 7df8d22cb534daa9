// A compaction never edits history: it stores a record and appends agent-only messages, atomically.
import * as z from 'zod';
import {
  AGENT_ONLY,
  StepReportSchema,
  StrategySchema,
  TriggerSchema,
  type CompactionRecord,
  type StoredMessage,
} from '@threadline/protocol';
import { StoreError, type CompactionsRepo, type NewCompaction, type NewMessage } from '../types';
import { json, parseInput, type RepoContext } from './context';
import { PATH_CTE } from '../db/branchSql';
import { type MessagesRepoImpl } from './messages';

const NewCompactionSchema = z.object({
  id: z.string().min(1).max(200).optional(),
  strategy: StrategySchema,
  trigger: TriggerSchema,
  steps: z.array(StepReportSchema),
  hiddenIds: z.array(z.string()),
  tokensBefore: z.number().int(),
  tokensAfter: z.number().int(),
  summary: z.string().nullable().optional(),
  instructions: z.string().nullable().optional(),
  afterSeq: z.number().int().nonnegative().optional(),
});

interface CompactionRow {
  id: string;
  session_id: string;
  strategy: CompactionRecord['strategy'];
  trigger: CompactionRecord['trigger'];
  steps: string;
  hidden_ids: string;
  inserted_ids: string;
  tokens_before: number;
  tokens_after: number;
  summary: string | null;
  instructions: string | null;
  after_seq: number;
  active: number;
  created_at: number;
  undone_at: number | null;
  anchor_id: string | null;
}

const toRecord = (r: CompactionRow): CompactionRecord => ({
  id: r.id,
  sessionId: r.session_id,
  strategy: r.strategy,
  trigger: r.trigger,
  steps: JSON.parse(r.steps) as CompactionRecord['steps'],
  hiddenIds: JSON.parse(r.hidden_ids) as string[],
  insertedIds: JSON.parse(r.inserted_ids) as string[],
  tokensBefore: r.tokens_before,
  tokensAfter: r.tokens_after,
  summary: r.summary,
  instructions: r.instructions,
  afterSeq: r.after_seq,
  active: r.active === 1,
  createdAt: r.created_at,
  undoneAt: r.undone_at,
});

export function createCompactionsRepo(ctx: RepoContext, messages: MessagesRepoImpl): CompactionsRepo {
  const { db } = ctx;
  const insert = db.prepare(
    `INSERT INTO compactions (id, session_id, strategy, trigger, steps, hidden_ids, inserted_ids, tokens_before, tokens_after, summary, instructions, after_seq, active, created_at, undone_at, anchor_id)
     VALUES (@id, @session_id, @strategy, @trigger, @steps, @hidden_ids, @inserted_ids, @tokens_before, @tokens_after, @summary, @instructions, @after_seq, @active, @created_at, @undone_at, @anchor_id)`,
  );
  const getOne = db.prepare<[string], CompactionRow>('SELECT * FROM compactions WHERE id = ?');
  const listEvery = db.prepare<[string], CompactionRow>(
    'SELECT * FROM compactions WHERE session_id = ? ORDER BY created_at, rowid',
  );
  // A compaction belongs to the branch whose leaf it saw: another branch's never hides this one's messages.
  const ON_BRANCH = '(anchor_id IS NULL OR anchor_id IN (SELECT id FROM path))';
  type Args = { sessionId: string };
  const listBranch = db.prepare<[Args], CompactionRow>(
    `${PATH_CTE} SELECT * FROM compactions WHERE session_id = @sessionId AND ${ON_BRANCH} ORDER BY created_at, rowid`,
  );
  const listActive = db.prepare<[Args], CompactionRow>(
    `${PATH_CTE} SELECT * FROM compactions WHERE session_id = @sessionId AND active = 1 AND ${ON_BRANCH} ORDER BY created_at, rowid`,
  );
  const newestActive = db.prepare<[Args], CompactionRow>(
    `${PATH_CTE} SELECT * FROM compactions WHERE session_id = @sessionId AND active = 1 AND ${ON_BRANCH} ORDER BY created_at DESC, rowid DESC LIMIT 1`,
  );
  const seqOf = db.prepare<[string], { seq: number }>('SELECT seq FROM messages WHERE id = ?');
  const deactivate = db.prepare<[number, string]>('UPDATE compactions SET active = 0, undone_at = ? WHERE id = ?');
  const countOwned = db.prepare<[string, string], { n: number }>(
    'SELECT count(*) AS n FROM messages WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))',
  );

  const applyTx = db.transaction((sessionId: string, input: NewCompaction, inserted: NewMessage[]) => {
    const rec = parseInput(NewCompactionSchema, input, 'compaction');
    const hidden = [...new Set(rec.hiddenIds)];
    if (countOwned.get(sessionId, json(hidden))?.n !== hidden.length) {
      throw new StoreError(
        'invalid_input',
        `Invalid compaction: some hidden ids are not messages of session ${sessionId}.`,
      );
    }
    const id = rec.id ?? ctx.newId();
    const anchor = messages.leaf(sessionId);
    const afterSeq = rec.afterSeq ?? (anchor ? (seqOf.get(anchor)?.seq ?? 0) : 0);
    const withOwner = inserted.map((m) => ({ ...m, meta: { ...m.meta, compactionId: id } }));
    const stored: StoredMessage[] = messages.insertInTx(sessionId, withOwner, { visibility: AGENT_ONLY });
    const row: CompactionRow = {
      id,
      session_id: sessionId,
      strategy: rec.strategy,
      trigger: rec.trigger,
      steps: json(rec.steps),
      hidden_ids: json(hidden),
      inserted_ids: json(stored.map((m) => m.id)),
      tokens_before: rec.tokensBefore,
      tokens_after: rec.tokensAfter,
      summary: rec.summary ?? null,
      instructions: rec.instructions ?? null,
      after_seq: afterSeq,
      active: 1,
      created_at: ctx.now(),
      undone_at: null,
      anchor_id: anchor,
    };
    insert.run(row);
    return { record: toRecord(row), inserted: stored };
  });

  const undoTx = db.transaction((sessionId: string): CompactionRecord | null => {
    const r = newestActive.get({ sessionId });
    if (!r) return null;
    deactivate.run(ctx.now(), r.id);
    const updated = getOne.get(r.id);
    return updated ? toRecord(updated) : null;
  });

  return {
    apply: (sessionId, record, inserted) => applyTx.immediate(sessionId, record, inserted),
    undoLast: (sessionId) => undoTx.immediate(sessionId),
    list: (sessionId) => listBranch.all({ sessionId }).map(toRecord),
    listAll: (sessionId) => listEvery.all(sessionId).map(toRecord),
    active: (sessionId) => listActive.all({ sessionId }).map(toRecord),
    get(id) {
      const r = getOne.get(id);
      return r ? toRecord(r) : null;
    },
  };
}
