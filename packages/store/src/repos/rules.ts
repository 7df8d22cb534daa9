import {
  RuleDraftSchema,
  RuleMatchSchema,
  RuleOriginSchema,
  type Rule,
  type RuleOrigin,
  type RuleScope,
} from '@threadline/protocol';
import { StoreError, type NewRule, type RulesRepo } from '../types';
import { json, parseInput, type RepoContext } from './context';

interface RuleRow {
  id: string;
  scope: RuleScope['kind'];
  session_id: string | null;
  folder: string | null;
  decision: Rule['decision'];
  match: string;
  reason: string | null;
  origin: string;
  created_at: number;
  updated_at: number;
  hits: number;
  last_hit_at: number | null;
}

const COLUMNS =
  'id, scope, session_id, folder, decision, match, reason, origin, created_at, updated_at, hits, last_hit_at';

function scopeOf(row: RuleRow): RuleScope {
  if (row.scope === 'session') return { kind: 'session', sessionId: row.session_id ?? '' };
  if (row.scope === 'folder') return { kind: 'folder', folder: row.folder ?? '' };
  return { kind: 'everywhere' };
}

/**
 * A stored row as a rule; null when it does not parse (written by something else than this
 * store): such a row decides nothing rather than something nobody can read.
 */
function toRule(row: RuleRow): Rule | null {
  let match: unknown;
  let origin: unknown;
  try {
    match = JSON.parse(row.match);
    origin = JSON.parse(row.origin);
  } catch {
    return null;
  }
  const m = RuleMatchSchema.safeParse(match);
  const o = RuleOriginSchema.safeParse(origin);
  if (!m.success || !o.success) return null;
  return {
    id: row.id,
    decision: row.decision,
    match: m.data,
    scope: scopeOf(row),
    reason: row.reason,
    origin: o.data,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    hits: row.hits,
    lastHitAt: row.last_hit_at,
  };
}

export function createRulesRepo(ctx: RepoContext): RulesRepo {
  const { db } = ctx;
  const all = db.prepare<[], RuleRow>(`SELECT ${COLUMNS} FROM permission_rules ORDER BY created_at, id`);
  const inForce = db.prepare<[string], RuleRow>(
    `SELECT ${COLUMNS} FROM permission_rules WHERE scope <> 'session' OR session_id = ? ORDER BY created_at, id`,
  );
  const one = db.prepare<[string], RuleRow>(`SELECT ${COLUMNS} FROM permission_rules WHERE id = ?`);
  const insert = db.prepare(
    `INSERT INTO permission_rules (id, scope, session_id, folder, decision, match, reason, origin, created_at, updated_at)
     VALUES (@id, @scope, @sessionId, @folder, @decision, @match, @reason, @origin, @now, @now)`,
  );
  const update = db.prepare(
    `UPDATE permission_rules SET scope = @scope, session_id = @sessionId, folder = @folder, decision = @decision,
       match = @match, reason = @reason, updated_at = @now WHERE id = @id`,
  );
  const removeOne = db.prepare<[string]>('DELETE FROM permission_rules WHERE id = ?');
  const hitOne = db.prepare<[number, string]>(
    'UPDATE permission_rules SET hits = hits + 1, last_hit_at = ? WHERE id = ?',
  );
  const sessionExists = db.prepare<[string], { id: string }>('SELECT id FROM sessions WHERE id = ?');

  const columns = (draft: NewRule, id: string) => {
    const d = parseInput(RuleDraftSchema, draft, 'rule');
    const scope = d.scope;
    if (scope.kind === 'session' && !sessionExists.get(scope.sessionId))
      throw new StoreError('not_found', `Session ${scope.sessionId} does not exist.`);
    // A reason is what the model reads when a rule denies; other decisions keep none.
    const reason = d.decision === 'deny' ? (d.reason ?? null) : null;
    return {
      id,
      scope: scope.kind,
      sessionId: scope.kind === 'session' ? scope.sessionId : null,
      folder: scope.kind === 'folder' ? scope.folder : null,
      decision: d.decision,
      match: json(d.match),
      reason,
      now: ctx.now(),
    };
  };
  const read = (id: string): Rule => {
    const row = one.get(id);
    const rule = row ? toRule(row) : null;
    if (!rule) throw new StoreError('not_found', `Rule ${id} does not exist.`);
    return rule;
  };

  return {
    list: () => all.all().flatMap((r) => toRule(r) ?? []),
    forSession: (sessionId) => inForce.all(sessionId).flatMap((r) => toRule(r) ?? []),
    get: (id) => {
      const row = one.get(id);
      return row ? toRule(row) : null;
    },
    add(draft, origin: RuleOrigin) {
      const o = parseInput(RuleOriginSchema, origin, 'rule origin');
      const id = ctx.newId();
      insert.run({ ...columns(draft, id), origin: json(o) });
      return read(id);
    },
    update(id, draft) {
      if (!one.get(id)) throw new StoreError('not_found', `Rule ${id} does not exist.`);
      update.run(columns(draft, id));
      return read(id);
    },
    remove: (id) => removeOne.run(id).changes > 0,
    hit(ids) {
      const at = ctx.now();
      for (const id of ids) hitOne.run(at, id);
    },
  };
}
