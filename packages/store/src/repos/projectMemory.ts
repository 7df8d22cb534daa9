// Project memory: candidates and accepted facts of each project, their evidence and checks.
// The runtime decides what to propose and checks the disk; this module keeps one row per fact of
// a project, merges evidence, and applies the user's decisions atomically.
import * as z from 'zod';
import {
  PathFingerprintSchema,
  PROJECT_FACT_MAX_CHARS,
  ProjectEvidenceSchema,
  ProjectFactKindSchema,
  ProjectFactSourceSchema,
  projectFactKey,
  type PathFingerprint,
  type ProjectEvidence,
  type ProjectFact,
} from '@threadline/protocol';
import { StoreError } from '../types';
import { PROJECT_CAPS, type FactCheck, type ProjectMemoryRepo, type ProposedFact } from '../projectTypes';
import { json, parseInput, parseJson, type RepoContext } from './context';

const ProposedSchema = z.object({
  kind: ProjectFactKindSchema,
  content: z.string().trim().min(1).max(PROJECT_FACT_MAX_CHARS),
  detail: z.string().max(40).nullable(),
  source: ProjectFactSourceSchema,
  evidence: ProjectEvidenceSchema,
  fingerprint: PathFingerprintSchema.nullable(),
  accept: z.boolean(),
});

interface Row {
  id: string;
  project: string;
  kind: ProjectFact['kind'];
  content: string;
  fact_key: string;
  detail: string | null;
  status: ProjectFact['status'];
  pinned: number;
  stale: ProjectFact['stale'];
  source: ProjectFact['source'];
  evidence: string;
  fingerprint: string | null;
  superseded_by: string | null;
  verified_at: number;
  checked_at: number | null;
  decided_at: number | null;
  created_at: number;
  updated_at: number;
}

function toFact(r: Row): ProjectFact {
  return {
    id: r.id,
    project: r.project,
    kind: r.kind,
    content: r.content,
    detail: r.detail,
    status: r.status,
    pinned: r.pinned === 1,
    stale: r.stale,
    source: r.source,
    evidence: parseJson<ProjectEvidence[]>(r.evidence) ?? [],
    fingerprint: parseJson<PathFingerprint>(r.fingerprint),
    supersededBy: r.superseded_by,
    verifiedAt: r.verified_at,
    checkedAt: r.checked_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The evidence list with one more piece in front (the same call twice counts once), at most 5. */
function withEvidence(list: readonly ProjectEvidence[], e: ProjectEvidence): ProjectEvidence[] {
  const same = (a: ProjectEvidence): boolean =>
    a.sessionId === e.sessionId && a.messageId === e.messageId && a.toolCallId === e.toolCallId;
  return [e, ...list.filter((a) => !same(a))].slice(0, PROJECT_CAPS.evidence);
}

export function createProjectMemoryRepo(ctx: RepoContext): ProjectMemoryRepo {
  const { db } = ctx;
  const COLS = [
    'id',
    'project',
    'kind',
    'content',
    'fact_key',
    'detail',
    'status',
    'pinned',
    'stale',
    'source',
    'evidence',
    'fingerprint',
    'superseded_by',
    'verified_at',
    'checked_at',
    'decided_at',
    'created_at',
    'updated_at',
  ];
  const insert = db.prepare<[Row]>(
    `INSERT INTO project_facts (${COLS.join(', ')}) VALUES (${COLS.map((c) => '@' + c).join(', ')})`,
  );
  const update = db.prepare<[Row]>(
    `UPDATE project_facts SET ${COLS.filter((c) => c !== 'id')
      .map((c) => `${c} = @${c}`)
      .join(', ')} WHERE id = @id`,
  );
  const byProject = db.prepare<[string], Row>(
    'SELECT * FROM project_facts WHERE project = ? ORDER BY created_at, rowid',
  );
  const byId = db.prepare<[string], Row>('SELECT * FROM project_facts WHERE id = ?');
  const byKey = db.prepare<[string, string], Row>('SELECT * FROM project_facts WHERE project = ? AND fact_key = ?');
  const countStatus = db.prepare<[string, string], { n: number }>(
    'SELECT count(*) AS n FROM project_facts WHERE project = ? AND status = ?',
  );
  const dropOldest = db.prepare<[string, string, number]>(
    `DELETE FROM project_facts WHERE id IN (SELECT id FROM project_facts WHERE project = ? AND status = ?
       ORDER BY created_at, rowid LIMIT ?)`,
  );

  const rowOf = (id: string): Row => {
    const r = byId.get(id);
    if (!r) throw new StoreError('not_found', `No project fact with id ${id}.`);
    return r;
  };
  const save = (r: Row): ProjectFact => {
    update.run(r);
    return toFact(r);
  };
  const cap = (project: string, status: 'candidate' | 'rejected', max: number): void => {
    const n = countStatus.get(project, status)?.n ?? 0;
    if (n > max) dropOldest.run(project, status, n - max);
  };

  const proposeTx = db.transaction((project: string, facts: readonly ProposedFact[]): ProjectFact[] => {
    const now = ctx.now();
    const changed = new Map<string, ProjectFact>();
    for (const raw of facts) {
      const f = parseInput(ProposedSchema, raw, 'project fact');
      const key = projectFactKey(f.kind, f.content);
      const old = byKey.get(project, key);
      if (old) {
        if (old.status !== 'accepted' && old.status !== 'candidate') continue;
        const next: Row = {
          ...old,
          evidence: json(withEvidence(parseJson<ProjectEvidence[]>(old.evidence) ?? [], f.evidence)),
          fingerprint: f.fingerprint ? json(f.fingerprint) : old.fingerprint,
          verified_at: Math.max(old.verified_at, f.evidence.at),
          stale: null,
          status: f.accept ? 'accepted' : old.status,
          detail: old.detail ?? f.detail,
          updated_at: now,
        };
        changed.set(old.id, save(next));
        continue;
      }
      const row: Row = {
        id: ctx.newId(),
        project,
        kind: f.kind,
        content: f.content,
        fact_key: key,
        detail: f.detail,
        status: f.accept ? 'accepted' : 'candidate',
        pinned: 0,
        stale: null,
        source: f.source,
        evidence: json([f.evidence]),
        fingerprint: f.fingerprint ? json(f.fingerprint) : null,
        superseded_by: null,
        verified_at: f.evidence.at,
        checked_at: null,
        decided_at: f.accept && f.source !== 'session' ? now : null,
        created_at: now,
        updated_at: now,
      };
      insert.run(row);
      changed.set(row.id, toFact(row));
    }
    cap(project, 'candidate', PROJECT_CAPS.candidates);
    return [...changed.values()].filter((f) => byId.get(f.id) !== undefined);
  });

  const supersedeTx = db.transaction((ids: readonly string[], by: string): ProjectFact[] => {
    const now = ctx.now();
    return ids.map((id) =>
      save({ ...rowOf(id), status: 'superseded', superseded_by: by, decided_at: now, updated_at: now }),
    );
  });

  const decideTx = db.transaction(
    (ids: readonly string[], decision: 'accept' | 'reject', prints?: ReadonlyMap<string, PathFingerprint>) => {
      const now = ctx.now();
      const out = ids.map((id) => {
        const r = rowOf(id);
        const print = prints?.get(id);
        return save({
          ...r,
          status: decision === 'accept' ? 'accepted' : 'rejected',
          stale: decision === 'accept' ? null : r.stale,
          fingerprint: print ? json(print) : r.fingerprint,
          // Kept as it is now: a command's age starts again, a file's change is taken in.
          verified_at: decision === 'accept' && r.stale !== null ? now : r.verified_at,
          decided_at: now,
          updated_at: now,
        });
      });
      if (decision === 'reject' && ids.length > 0) cap(rowOf(ids[0]!).project, 'rejected', PROJECT_CAPS.rejected);
      return out;
    },
  );

  const editTx = db.transaction((id: string, content: string, pinned?: boolean): ProjectFact => {
    const r = rowOf(id);
    const text = parseInput(ProposedSchema.shape.content, content, 'project fact');
    const key = projectFactKey(r.kind, text);
    const other = byKey.get(r.project, key);
    if (other && other.id !== id) throw new StoreError('invalid_input', 'The project memory already has this fact.');
    const now = ctx.now();
    return save({
      ...r,
      content: text,
      fact_key: key,
      status: r.status === 'candidate' ? 'accepted' : r.status,
      pinned: pinned === undefined ? r.pinned : Number(pinned),
      decided_at: now,
      updated_at: now,
    });
  });

  const checkedTx = db.transaction((updates: readonly FactCheck[]): ProjectFact[] => {
    const now = ctx.now();
    const out: ProjectFact[] = [];
    for (const u of updates) {
      const r = byId.get(u.id);
      if (!r) continue;
      const print = u.fingerprint ? json(u.fingerprint) : r.fingerprint;
      if (r.stale === u.stale && print === r.fingerprint) continue;
      out.push(save({ ...r, stale: u.stale, fingerprint: print, checked_at: now, updated_at: now }));
    }
    return out;
  });

  return {
    facts: (project) => byProject.all(project).map(toFact),
    get: (id) => {
      const r = byId.get(id);
      return r ? toFact(r) : null;
    },
    propose: (project, facts) => proposeTx.immediate(project, facts),
    supersede: (ids, by) => supersedeTx.immediate(ids, by),
    decide: (ids, decision, prints) => decideTx.immediate(ids, decision, prints),
    setStatus: (id, status, pinned) => {
      const r = rowOf(id);
      const now = ctx.now();
      return save({
        ...r,
        status,
        pinned: pinned === undefined ? r.pinned : Number(pinned),
        superseded_by: status === 'accepted' ? null : r.superseded_by,
        decided_at: status === r.status ? r.decided_at : now,
        updated_at: now,
      });
    },
    edit: (id, content, pinned) => editTx.immediate(id, content, pinned),
    checked: (updates) => checkedTx.immediate(updates),
  };
}
