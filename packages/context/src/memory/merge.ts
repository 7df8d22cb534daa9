/**
 * Merge accepted drafts into facts and prune auto facts. Facts are never mutated in
 * place: both functions return new arrays with new objects for the facts they changed.
 */
import type { MemoryFact } from '@threadline/protocol';
import {
  CONFIDENCE_AUTO,
  CONFIDENCE_INVALID_PATH,
  CONFIDENCE_MAX,
  CONFIDENCE_MIN,
  CONFIDENCE_USER,
  MAX_AUTO_FACTS,
} from './constants';
import { factKey } from './evaluate';
import { isDateOnly, isPathLike, isUnhelpfulPath } from './paths';
import type { MemoryDraft } from './types';

/** What the agent may see: active facts, and pinned ones unless the user forgot them. */
export function isActiveFact(f: MemoryFact): boolean {
  return f.status === 'active' || (f.pinned && f.status !== 'forgotten');
}

export function clampConfidence(c: number): number {
  if (!Number.isFinite(c)) return CONFIDENCE_AUTO;
  return Math.min(CONFIDENCE_MAX, Math.max(CONFIDENCE_MIN, c));
}

export function defaultConfidence(d: Pick<MemoryDraft, 'category' | 'source'>): number {
  if (d.source === 'user') return CONFIDENCE_USER;
  return d.category === 'invalid_path' ? CONFIDENCE_INVALID_PATH : CONFIDENCE_AUTO;
}

export interface MergeOutcome {
  /** The next facts, held to the auto-fact cap. */
  facts: MemoryFact[];
  created: number;
  reinforced: number;
  /** Auto facts the cap dropped (retired and weakest first). */
  droppedIds: string[];
}

/** Accepted drafts → facts: a new fact per new key, +1 evidence per repeated key. */
export function mergeDecisions(
  facts: readonly MemoryFact[],
  accepted: readonly MemoryDraft[],
  opts: { sessionId: string; now: number; newId: () => string; cap?: number },
): MergeOutcome {
  const next = facts.map((f) => ({ ...f }));
  const byKey = new Map<string, MemoryFact>();
  for (const f of next)
    if (!byKey.has(factKey(f.category, f.content)) || isActiveFact(f)) byKey.set(factKey(f.category, f.content), f);
  let created = 0;
  let reinforced = 0;
  for (const d of accepted) {
    const content = d.content.trim();
    const key = factKey(d.category, content);
    const existing = byKey.get(key);
    if (existing !== undefined) {
      if (existing.status === 'forgotten') continue; // the user's "forget" wins over new evidence
      existing.evidenceCount += 1;
      existing.status = 'active';
      existing.updatedAt = opts.now;
      if (d.validatedBy !== undefined) {
        existing.lastValidatedAt = opts.now;
        existing.validationCommand = d.validatedBy;
      }
      reinforced++;
    } else {
      const fact: MemoryFact = {
        id: opts.newId(),
        sessionId: opts.sessionId,
        category: d.category,
        content,
        status: 'active',
        pinned: false,
        source: d.source,
        confidence: clampConfidence(defaultConfidence(d)),
        evidenceCount: 1,
        lastValidatedAt: d.validatedBy !== undefined ? opts.now : null,
        validationCommand: d.validatedBy ?? null,
        createdAt: opts.now,
        updatedAt: opts.now,
      };
      next.push(fact);
      byKey.set(key, fact);
      created++;
    }
  }
  const capped = capAutoFacts(next, opts.cap ?? MAX_AUTO_FACTS);
  return { facts: capped.facts, created, reinforced, droppedIds: capped.droppedIds };
}

/**
 * Paths whose latest event in `drafts` shows they exist (a successful write, or a successful
 * `ls`/`stat`/`test -d`/`Test-Path` True probe): an active auto `invalid_path` fact about them
 * is superseded, so memory and the gate stop refusing a path that is there now (a missing file
 * the agent then created, a drive that was mounted later).
 */
export function supersedeRecreated(facts: MemoryFact[], drafts: readonly MemoryDraft[], now: number): string[] {
  const last = new Map<string, 'exists' | 'missing'>();
  for (const d of drafts) {
    const k = d.content.trim().toLowerCase();
    if (d.category === 'artifact' && (d.written === true || d.validatedBy !== undefined)) last.set(k, 'exists');
    else if (d.category === 'invalid_path') last.set(k, 'missing');
  }
  const ids: string[] = [];
  for (const f of facts) {
    if (f.category !== 'invalid_path' || f.status !== 'active' || f.source !== 'cfpm_auto' || f.pinned) continue;
    if (last.get(f.content.trim().toLowerCase()) !== 'exists') continue;
    f.status = 'superseded';
    f.updatedAt = now;
    ids.push(f.id);
  }
  return ids;
}

export interface PruneOutcome {
  facts: MemoryFact[];
  prunedIds: string[];
}

function prunable(f: MemoryFact): boolean {
  return f.source === 'cfpm_auto' && !f.pinned && f.status === 'active';
}

function score(f: MemoryFact): number {
  return f.evidenceCount * f.confidence;
}

/**
 * The per-session cap (120 auto facts), counted as the store counts it: auto facts that
 * are not pinned and not forgotten. Pinned facts and the user's "forget" tombstones are the user's
 * and never dropped (a dropped tombstone would let the forgotten fact come back). Retired facts go
 * first (oldest first), then the weakest active ones.
 */
export function capAutoFacts(
  facts: readonly MemoryFact[],
  cap = MAX_AUTO_FACTS,
): { facts: MemoryFact[]; droppedIds: string[] } {
  const counted = facts.filter((f) => f.source === 'cfpm_auto' && !f.pinned && f.status !== 'forgotten');
  if (counted.length <= cap) return { facts: [...facts], droppedIds: [] };
  const order = [...counted].sort(
    (a, b) => Number(isActiveFact(a)) - Number(isActiveFact(b)) || score(a) - score(b) || a.updatedAt - b.updatedAt,
  );
  const drop = new Set(order.slice(0, counted.length - cap).map((f) => f.id));
  return { facts: facts.filter((f) => !drop.has(f.id)), droppedIds: [...drop] };
}

/**
 * The per-turn prune pass, run even when no draft was found: retire date-only or non-path
 * artifacts, artifacts later found invalid, duplicates; then hold auto facts to the cap.
 */
export function pruneFacts(facts: readonly MemoryFact[], now: number, cap = MAX_AUTO_FACTS): PruneOutcome {
  const next = facts.map((f) => ({ ...f }));
  const pruned = new Set<string>();
  const retire = (f: MemoryFact, status: MemoryFact['status']): void => {
    f.status = status;
    f.updatedAt = now;
    pruned.add(f.id);
  };
  const invalid = new Set(
    next
      .filter((f) => f.category === 'invalid_path' && f.status === 'active')
      .map((f) => f.content.trim().toLowerCase()),
  );
  for (const f of next) {
    if (!prunable(f) || f.category !== 'artifact') continue;
    const c = f.content.trim();
    if (isDateOnly(c) || !isPathLike(c) || isUnhelpfulPath(c)) retire(f, 'stale');
    else if (invalid.has(c.toLowerCase())) retire(f, 'superseded');
  }
  const keep = new Map<string, MemoryFact>();
  for (const f of next) {
    if (!isActiveFact(f)) continue;
    const key = factKey(f.category, f.content);
    const other = keep.get(key);
    if (other === undefined) {
      keep.set(key, f);
      continue;
    }
    // Keep the stronger one (pinned/user first), fold the other's evidence into it.
    const [winner, loser] = !prunable(f) || (prunable(other) && score(f) > score(other)) ? [f, other] : [other, f];
    if (!prunable(loser)) continue;
    winner.evidenceCount += loser.evidenceCount;
    keep.set(key, winner);
    retire(loser, 'superseded');
  }
  const capped = capAutoFacts(next, cap);
  for (const id of capped.droppedIds) pruned.add(id);
  const out = capped.facts;
  return { facts: out, prunedIds: [...pruned] };
}
