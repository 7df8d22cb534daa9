// CFPM session memory: facts, candidate decisions, snapshots, and the log of user edits.
// The engine decides what to remember; this module stores its decision atomically and keeps the caps.
import * as z from 'zod';
import {
  CandidateReasonSchema,
  FactCategorySchema,
  FactSourceSchema,
  FactStatusSchema,
  MemoryFactSchema,
  type FactStatus,
  type MemoryCandidate,
  type MemoryFact,
  type MemorySnapshot,
} from '@threadline/protocol';
import {
  MEMORY_CAPS,
  StoreError,
  type FactEdit,
  type MemoryEditLogEntry,
  type MemoryRefresh,
  type MemoryRepo,
  type BranchHint,
} from '../types';
import { json, parseInput, type RepoContext } from './context';
import { PATH_CTE } from '../db/branchSql';
import { engineChanged, HIDDEN, ON_PATH, SHARED, toFact, toRow, VISIBLE, type FactRow } from './memoryRows';

const RefreshSchema = z.object({
  facts: z.array(MemoryFactSchema),
  candidates: z.array(
    z.object({
      id: z.string().min(1).optional(),
      category: FactCategorySchema,
      content: z.string(),
      source: FactSourceSchema,
      decision: z.enum(['accepted', 'rejected']),
      reason: CandidateReasonSchema,
      createdAt: z.number().int().optional(),
    }),
  ),
  snapshot: z
    .object({
      id: z.string().min(1).optional(),
      compactionId: z.string().nullable().optional(),
      content: z.string(),
      factCount: z.number().int().nonnegative(),
      createdAt: z.number().int().optional(),
    })
    .optional(),
});

const FactEditSchema = z.object({
  id: z.string().min(1).optional(),
  category: FactCategorySchema,
  content: z.string().trim().min(1).max(2000),
  pinned: z.boolean().optional(),
});

const toCandidate = (r: Record<string, unknown>): MemoryCandidate => ({
  id: r.id as string,
  sessionId: r.session_id as string,
  category: r.category as MemoryCandidate['category'],
  content: r.content as string,
  source: r.source as MemoryCandidate['source'],
  decision: r.decision as MemoryCandidate['decision'],
  reason: r.reason as MemoryCandidate['reason'],
  createdAt: r.created_at as number,
});

export function createMemoryRepo(ctx: RepoContext): MemoryRepo {
  const { db } = ctx;
  // Named columns everywhere: a later migration may add columns.
  const FACT_COLS = [
    'id',
    'session_id',
    'category',
    'content',
    'status',
    'pinned',
    'source',
    'confidence',
    'evidence_count',
    'last_validated_at',
    'validation_command',
    'created_at',
    'updated_at',
    'anchor_id',
  ];
  const insertFact = db.prepare(
    `INSERT INTO memory_facts (${FACT_COLS.join(', ')}) VALUES (${FACT_COLS.map((c) => '@' + c).join(', ')})`,
  );
  const updateFactFull = db.prepare(
    `UPDATE memory_facts SET category = @category, content = @content, status = @status, pinned = @pinned, source = @source, confidence = @confidence,
       evidence_count = @evidence_count, last_validated_at = @last_validated_at, validation_command = @validation_command, updated_at = @updated_at WHERE id = @id`,
  );
  const updateFactEngine = db.prepare(
    `UPDATE memory_facts SET confidence = @confidence, evidence_count = @evidence_count, last_validated_at = @last_validated_at,
       validation_command = @validation_command, updated_at = @updated_at WHERE id = @id`,
  );
  const getFact = db.prepare<[string], FactRow>('SELECT * FROM memory_facts WHERE id = ?');
  type Sid = { sessionId: string };
  const listFacts = db.prepare<[Sid], FactRow>(
    `${PATH_CTE} SELECT * FROM memory_facts WHERE session_id = @sessionId AND ${VISIBLE} ORDER BY created_at, rowid`,
  );
  // A refresh walks the branch once (pathIds) and hands the ids to each of its statements.
  const pathIds = db.prepare<[Sid], { id: string }>(`${PATH_CTE} SELECT id FROM path WHERE id IS NOT NULL`);
  const BRANCH = 'WITH path(id) AS (SELECT value FROM json_each(@path))';
  type Branch = Sid & { path: string };
  const listFactsIn = db.prepare<[Branch], FactRow>(
    `${BRANCH} SELECT * FROM memory_facts WHERE session_id = @sessionId AND ${VISIBLE} ORDER BY created_at, rowid`,
  );
  const listEveryFact = db.prepare<[string], FactRow>(
    'SELECT * FROM memory_facts WHERE session_id = ? ORDER BY created_at, rowid',
  );
  const leafOf = db.prepare<[string], { l: string | null }>('SELECT active_leaf_id AS l FROM sessions WHERE id = ?');
  // The newest message of the active branch that another branch also goes through.
  const forkSeqOf = db.prepare<[Branch], { s: number | null }>(
    `${BRANCH} SELECT max(p.seq) AS s FROM messages p WHERE p.id IN (SELECT id FROM path)
       AND EXISTS (SELECT 1 FROM messages c WHERE c.parent_id = p.id AND c.id NOT IN (SELECT id FROM path))`,
  );
  type Fork = Branch & { forkSeq: number };
  const sharedFacts = db.prepare<[Fork], { id: string }>(
    `${BRANCH} SELECT id FROM memory_facts WHERE session_id = @sessionId AND source = 'cfpm_auto' AND pinned = 0 AND ${SHARED}`,
  );
  const hide = db.prepare<[string, string]>(
    'INSERT OR IGNORE INTO memory_fact_hides (fact_id, anchor_id) VALUES (?, ?)',
  );
  // Pinned and user-forgotten auto facts are user decisions: the engine's list cannot drop them;
  // nor can it drop another branch's facts, which it never saw.
  const deleteMissingAuto = db.prepare<[Fork & { keep: string }]>(
    `${BRANCH} DELETE FROM memory_facts WHERE session_id = @sessionId AND source = 'cfpm_auto' AND pinned = 0
       AND status != 'forgotten' AND ${ON_PATH} AND NOT ${SHARED} AND id NOT IN (SELECT value FROM json_each(@keep))`,
  );
  const trimAuto = db.prepare<[Fork & { n: number }], { id: string }>(
    `${BRANCH} DELETE FROM memory_facts WHERE id IN (
       SELECT id FROM memory_facts WHERE session_id = @sessionId AND source = 'cfpm_auto' AND pinned = 0
         AND ${ON_PATH} AND NOT ${HIDDEN} AND NOT ${SHARED}
       ORDER BY (status = 'active') ASC, updated_at ASC, rowid ASC LIMIT @n)`,
  );
  const countAuto = db.prepare<[Branch], { n: number }>(
    `${BRANCH} SELECT count(*) AS n FROM memory_facts WHERE session_id = @sessionId AND source = 'cfpm_auto'
       AND ${ON_PATH} AND NOT ${HIDDEN}`,
  );
  const insertCandidate = db.prepare(
    'INSERT INTO memory_candidates (id, session_id, category, content, source, decision, reason, created_at, anchor_id) VALUES (@id, @session_id, @category, @content, @source, @decision, @reason, @created_at, @anchor_id)',
  );
  const listCandidates = db.prepare<[Sid & { limit: number }], Record<string, unknown>>(
    `${PATH_CTE} SELECT * FROM memory_candidates WHERE session_id = @sessionId AND ${ON_PATH}
       ORDER BY created_at DESC, rowid DESC LIMIT @limit`,
  );
  const listCandidatesIn = db.prepare<[Branch & { limit: number }], Record<string, unknown>>(
    `${BRANCH} SELECT * FROM memory_candidates WHERE session_id = @sessionId AND ${ON_PATH}
       ORDER BY created_at DESC, rowid DESC LIMIT @limit`,
  );
  // Every branch condition here asks only whether a row's anchor is on the branch: with a hint,
  // the anchors the session's memory rows use (bounded by the caps) stand in for the whole path.
  const anchorsOf = db.prepare<[Sid], { id: string }>(
    `SELECT anchor_id AS id FROM memory_facts WHERE session_id = @sessionId AND anchor_id IS NOT NULL
     UNION SELECT anchor_id FROM memory_candidates WHERE session_id = @sessionId AND anchor_id IS NOT NULL
     UNION SELECT h.anchor_id FROM memory_fact_hides h JOIN memory_facts f ON f.id = h.fact_id WHERE f.session_id = @sessionId`,
  );
  const trimCandidates = db.prepare<[Fork & { cap: number }]>(
    `${BRANCH} DELETE FROM memory_candidates WHERE session_id = @sessionId AND ${ON_PATH} AND NOT ${SHARED} AND id NOT IN (
       SELECT id FROM memory_candidates WHERE session_id = @sessionId AND ${ON_PATH}
       ORDER BY created_at DESC, rowid DESC LIMIT @cap)`,
  );
  const insertSnapshot = db.prepare(
    'INSERT INTO memory_snapshots (id, session_id, compaction_id, content, fact_count, created_at) VALUES (@id, @session_id, @compaction_id, @content, @fact_count, @created_at)',
  );
  const listSnapshots = db.prepare<[string], Record<string, unknown>>(
    'SELECT * FROM memory_snapshots WHERE session_id = ? ORDER BY created_at, rowid',
  );
  const trimSnapshots = db.prepare<[string, string, number]>(
    `DELETE FROM memory_snapshots WHERE session_id = ? AND id NOT IN (
       SELECT id FROM memory_snapshots WHERE session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?)`,
  );
  const insertLog = db.prepare(
    'INSERT INTO memory_edit_log (id, session_id, fact_id, actor, action, before, after, created_at) VALUES (@id, @session_id, @fact_id, @actor, @action, @before, @after, @created_at)',
  );
  const listLog = db.prepare<[string], Record<string, unknown>>(
    'SELECT * FROM memory_edit_log WHERE session_id = ? ORDER BY created_at, rowid',
  );
  const sessionExists = db.prepare<[string], { id: string }>('SELECT id FROM sessions WHERE id = ?');

  /** The branch's ids as the statements take them: every message, or with a hint only the anchors on it. */
  const branchPath = (sessionId: string, hint: BranchHint | undefined): string => {
    if (!hint) return json(pathIds.all({ sessionId }).map((r) => r.id));
    const ids = anchorsOf
      .all({ sessionId })
      .map((r) => r.id)
      .filter((id) => hint.onPath(id));
    // What this refresh anchors is on the branch too.
    const leaf = leafOf.get(sessionId)?.l ?? null;
    if (leaf !== null && !ids.includes(leaf)) ids.push(leaf);
    return json(ids);
  };

  const mustSession = (sessionId: string): void => {
    if (!sessionExists.get(sessionId)) throw new StoreError('not_found', `Session ${sessionId} does not exist.`);
  };

  const refreshTx = db.transaction((sessionId: string, input: MemoryRefresh, hint?: BranchHint) => {
    const next = parseInput(RefreshSchema, input, 'memory refresh');
    mustSession(sessionId);
    const now = ctx.now();
    const anchor = leafOf.get(sessionId)?.l ?? null;
    // What this branch may change: a fact of another branch (e.g. a refresh computed before the
    // user switched) is left exactly as it is.
    const path = branchPath(sessionId, hint);
    const mine = new Set(listFactsIn.all({ sessionId, path }).map((r) => r.id));
    const forkSeq = hint ? hint.forkSeq : (forkSeqOf.get({ sessionId, path })?.s ?? -1);
    const shared = new Set(
      sharedFacts
        .all({ sessionId, path, forkSeq })
        .map((r) => r.id)
        .filter((id) => mine.has(id)),
    );
    const keep = new Set(next.facts.map((f) => f.id));
    for (const f of next.facts) {
      if (f.sessionId !== sessionId)
        throw new StoreError(
          'invalid_input',
          `Invalid memory refresh: fact ${f.id} belongs to session ${f.sessionId}.`,
        );
      const existing = getFact.get(f.id);
      if (existing && existing.session_id !== sessionId)
        throw new StoreError('invalid_input', `Invalid memory refresh: fact ${f.id} belongs to another session.`);
      if (!existing) insertFact.run(toRow(f, anchor));
      else if (!mine.has(existing.id)) continue;
      else if (existing.source === 'user') updateFactEngine.run(toRow(f));
      else if (shared.has(existing.id)) {
        // Copy on write: the other branches keep the fact as it was.
        if (!engineChanged(existing, f)) continue;
        hide.run(existing.id, anchor!);
        const status = existing.status === 'forgotten' ? 'forgotten' : f.status;
        const copy = { ...f, id: ctx.newId(), status, createdAt: existing.created_at };
        insertFact.run(toRow(copy, anchor));
        keep.add(copy.id);
      } else {
        const row = toRow(f);
        if (existing.pinned === 1) row.pinned = 1;
        if (existing.status === 'forgotten') row.status = 'forgotten';
        updateFactFull.run(row);
      }
    }
    deleteMissingAuto.run({ sessionId, path, forkSeq, keep: json([...keep]) });
    for (const id of shared) if (!keep.has(id) && getFact.get(id)?.status !== 'forgotten') hide.run(id, anchor!);
    const excess = (countAuto.get({ sessionId, path })?.n ?? 0) - MEMORY_CAPS.autoFacts;
    const trimmedFacts = excess > 0 ? trimAuto.run({ sessionId, path, forkSeq, n: excess }).changes : 0;

    for (const c of next.candidates) {
      insertCandidate.run({
        id: c.id ?? ctx.newId(),
        session_id: sessionId,
        category: c.category,
        content: c.content,
        source: c.source,
        decision: c.decision,
        reason: c.reason,
        created_at: c.createdAt ?? now,
        anchor_id: anchor,
      });
    }
    const trimmedCandidates =
      next.candidates.length > 0
        ? trimCandidates.run({ sessionId, path, forkSeq, cap: MEMORY_CAPS.candidates }).changes
        : 0;

    let trimmedSnapshots = 0;
    if (next.snapshot) {
      const s = next.snapshot;
      insertSnapshot.run({
        id: s.id ?? ctx.newId(),
        session_id: sessionId,
        compaction_id: s.compactionId ?? null,
        content: s.content,
        fact_count: s.factCount,
        created_at: s.createdAt ?? now,
      });
      trimmedSnapshots = trimSnapshots.run(sessionId, sessionId, MEMORY_CAPS.snapshots).changes;
    }
    return {
      facts: listFactsIn.all({ sessionId, path }).map(toFact),
      candidates: listCandidatesIn.all({ sessionId, path, limit: MEMORY_CAPS.candidates }).map(toCandidate),
      trimmed: { facts: trimmedFacts, candidates: trimmedCandidates, snapshots: trimmedSnapshots },
    };
  });

  function log(
    sessionId: string,
    action: MemoryEditLogEntry['action'],
    before: MemoryFact | null,
    after: MemoryFact,
  ): void {
    insertLog.run({
      id: ctx.newId(),
      session_id: sessionId,
      fact_id: after.id,
      actor: 'user',
      action,
      before: before ? json(before) : null,
      after: json(after),
      created_at: ctx.now(),
    });
  }

  const upsertTx = db.transaction((sessionId: string, input: FactEdit): MemoryFact => {
    const e = parseInput(FactEditSchema, input, 'memory fact');
    mustSession(sessionId);
    const now = ctx.now();
    const existingRow = e.id !== undefined ? getFact.get(e.id) : undefined;
    if (existingRow && existingRow.session_id !== sessionId)
      throw new StoreError('not_found', `Memory fact ${e.id} does not exist in session ${sessionId}.`);
    if (existingRow) {
      const before = toFact(existingRow);
      // What the user rewrote is theirs from now on: no longer "Automatic · 70 %" (nor pruned as such).
      const rewritten = e.content !== before.content || e.category !== before.category;
      const after: MemoryFact = {
        ...before,
        category: e.category,
        content: e.content,
        pinned: e.pinned ?? before.pinned,
        ...(rewritten ? { source: 'user' as const, confidence: 1 } : {}),
        updatedAt: now,
      };
      updateFactFull.run(toRow(after, existingRow.anchor_id));
      log(sessionId, 'edit', before, after);
      return after;
    }
    const fact: MemoryFact = {
      id: e.id ?? ctx.newId(),
      sessionId,
      category: e.category,
      content: e.content,
      status: 'active',
      pinned: e.pinned ?? false,
      source: 'user',
      confidence: 1,
      evidenceCount: 1,
      lastValidatedAt: null,
      validationCommand: null,
      createdAt: now,
      updatedAt: now,
    };
    insertFact.run(toRow(fact));
    log(sessionId, 'create', null, fact);
    return fact;
  });

  const setStatusTx = db.transaction((id: string, status: FactStatus, pinned?: boolean): MemoryFact => {
    const s = parseInput(FactStatusSchema, status, 'fact status');
    const row = getFact.get(id);
    if (!row) throw new StoreError('not_found', `Memory fact ${id} does not exist.`);
    const before = toFact(row);
    const after: MemoryFact = { ...before, status: s, pinned: pinned ?? before.pinned, updatedAt: ctx.now() };
    updateFactFull.run(toRow(after));
    log(before.sessionId, 'status', before, after);
    return after;
  });

  return {
    facts: (sessionId, opts) =>
      (opts?.allBranches ? listEveryFact.all(sessionId) : listFacts.all({ sessionId })).map(toFact),
    candidates: (sessionId, limit = MEMORY_CAPS.candidates, hint) =>
      (hint
        ? listCandidatesIn.all({ sessionId, limit, path: branchPath(sessionId, hint) })
        : listCandidates.all({ sessionId, limit })
      ).map(toCandidate),
    snapshots: (sessionId) =>
      listSnapshots.all(sessionId).map((r): MemorySnapshot => ({
        id: r.id as string,
        sessionId: r.session_id as string,
        compactionId: r.compaction_id as string | null,
        content: r.content as string,
        factCount: r.fact_count as number,
        createdAt: r.created_at as number,
      })),
    refresh: (sessionId, next, hint) => refreshTx.immediate(sessionId, next, hint),
    forkSeq: (sessionId) => {
      const path = json(pathIds.all({ sessionId }).map((r) => r.id));
      return forkSeqOf.get({ sessionId, path })?.s ?? -1;
    },
    upsertFact: (sessionId, edit) => upsertTx.immediate(sessionId, edit),
    setStatus: (id, status, pinned) => setStatusTx.immediate(id, status, pinned),
    editLog: (sessionId) =>
      listLog.all(sessionId).map((r): MemoryEditLogEntry => ({
        id: r.id as string,
        sessionId: r.session_id as string,
        factId: r.fact_id as string,
        actor: 'user',
        action: r.action as MemoryEditLogEntry['action'],
        before: r.before === null ? null : (JSON.parse(r.before as string) as MemoryFact),
        after: JSON.parse(r.after as string) as MemoryFact,
        createdAt: r.created_at as number,
      })),
  };
}
