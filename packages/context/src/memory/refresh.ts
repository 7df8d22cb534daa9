/**
 * One CFPM refresh: extract → evaluate → merge → prune, with the audit
 * trail of candidates and the mode the runtime reports.
 */
import type { ChatMessage, MemoryCandidate, MemorySnapshot, RefreshMode } from '@threadline/protocol';
import { DEFAULT_RECENT_MESSAGES, MAX_CANDIDATES, MAX_SNAPSHOTS } from './constants';
import { evaluateDraft, factKey, seenKey } from './evaluate';
import { extractDrafts } from './extract';
import { projectPromotions } from './promote';
import { isActiveFact, mergeDecisions, pruneFacts, supersedeRecreated } from './merge';
import type { MemoryDelta, MemoryDraft, RefreshInput, RefreshResult } from './types';
import type { MemoryFact } from '@threadline/protocol';

function modeOf(drafts: number, accepted: number, pruned: number): RefreshMode {
  if (accepted > 0) return pruned > 0 ? 'merge+prune' : 'merge';
  if (pruned > 0) return 'prune';
  return drafts > 0 ? 'candidate_only' : 'noop';
}

/**
 * The messages one refresh should parse when the caller passes the whole history: the latest
 * step only, so that refreshing after every tool step and at every turn start counts each
 * message once (evidence must mean "seen again", not "parsed again"). The step starts at the
 * last user message or assistant tool call, and takes in the assistant replies right before a
 * user message (the previous turn's final answer, which no step refresh saw).
 */
export function latestStepStart(messages: readonly ChatMessage[]): number {
  let i = messages.length - 1;
  while (i >= 0) {
    const m = messages[i]!;
    if (m.role === 'user' || (m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0)) break;
    i--;
  }
  if (i < 0) return Math.max(0, messages.length - DEFAULT_RECENT_MESSAGES);
  if (messages[i]!.role === 'user') {
    while (i > 0 && messages[i - 1]!.role === 'assistant' && (messages[i - 1]!.tool_calls?.length ?? 0) === 0) i--;
  }
  return i;
}

export function refreshMemory(input: RefreshInput): RefreshResult {
  const prior = input.facts ?? [];
  const start =
    input.recent !== undefined
      ? Math.max(0, input.messages.length - input.recent)
      : prior.length === 0
        ? 0
        : latestStepStart(input.messages);
  const window = input.messages.slice(start);
  const drafts = extractDrafts(window);

  const seen = new Set<string>();
  const accepted: MemoryDraft[] = [];
  const candidates: MemoryCandidate[] = [];
  const breakdown: Record<string, number> = {};
  // One candidate row per (category, content, decision, reason): a path named in ten messages is
  // one rejected candidate, not ten, in this refresh and against the rows already stored.
  const recorded = new Set(
    (input.candidates ?? []).map((c) => `${c.decision}|${c.reason}|${factKey(c.category, c.content)}`),
  );
  for (const draft of drafts) {
    const reason = evaluateDraft(draft, { facts: prior, seen });
    const decision = reason === 'accepted' ? 'accepted' : 'rejected';
    if (decision === 'accepted') {
      seen.add(seenKey(draft));
      accepted.push(draft);
    } else {
      breakdown[reason] = (breakdown[reason] ?? 0) + 1;
    }
    const rowKey = `${decision}|${reason}|${factKey(draft.category, draft.content)}`;
    if (decision === 'rejected' && recorded.has(rowKey)) continue;
    recorded.add(rowKey);
    candidates.push({
      id: input.newId(),
      sessionId: input.sessionId,
      category: draft.category,
      content: draft.content.trim().slice(0, 2000),
      source: draft.source,
      decision,
      reason,
      createdAt: input.now,
    });
  }

  // The cap is applied once, by the prune pass below: after supersede and prune have retired what
  // they retire, so a fact about to be retired anyway is dropped before an active one.
  const merged = mergeDecisions(prior, accepted, {
    sessionId: input.sessionId,
    now: input.now,
    newId: input.newId,
    cap: Number.POSITIVE_INFINITY,
  });
  const recreated = supersedeRecreated(merged.facts, drafts, input.now);
  const swept = pruneFacts(merged.facts, input.now);
  const pruned = { facts: swept.facts, prunedIds: [...new Set([...recreated, ...swept.prunedIds])] };
  const rejectedCount = drafts.length - accepted.length;
  const fresh = capCandidates(candidates);
  return {
    facts: pruned.facts,
    candidates: fresh,
    sessionCandidates: capCandidates([...(input.candidates ?? []), ...fresh]),
    snapshots: capSnapshots(input.snapshots ?? []),
    mode: modeOf(drafts.length, accepted.length, pruned.prunedIds.length),
    reason: input.reason ?? 'turn',
    acceptedCount: accepted.length,
    rejectedCount,
    prunedCount: pruned.prunedIds.length,
    factCount: pruned.facts.filter(isActiveFact).length,
    rejectedReasonBreakdown: breakdown,
    prunedIds: pruned.prunedIds,
    net: memoryDelta(prior, pruned.facts),
    promotions: input.promote ? projectPromotions(window, input.promote.previous) : [],
  };
}

/**
 * What changed in memory's content between two fact lists: new evidence for a fact already held
 * is no change, a fact retired and another added in one refresh is one of each.
 */
export function memoryDelta(before: readonly MemoryFact[], after: readonly MemoryFact[]): MemoryDelta {
  const was = new Map(before.filter(isActiveFact).map((f) => [f.id, f]));
  const now = new Map(after.filter(isActiveFact).map((f) => [f.id, f]));
  let added = 0;
  let updated = 0;
  for (const [id, f] of now) {
    const old = was.get(id);
    if (!old) added++;
    else if (old.content !== f.content || old.category !== f.category) updated++;
  }
  let retired = 0;
  for (const id of was.keys()) if (!now.has(id)) retired++;
  return { added, updated, retired };
}

/** Keep the newest `cap` candidates (input in creation order). */
export function capCandidates<T extends MemoryCandidate>(rows: readonly T[], cap = MAX_CANDIDATES): T[] {
  return rows.length <= cap ? [...rows] : rows.slice(rows.length - cap);
}

/** Keep the newest `cap` snapshots (input in creation order). */
export function capSnapshots<T extends MemorySnapshot>(rows: readonly T[], cap = MAX_SNAPSHOTS): T[] {
  return rows.length <= cap ? [...rows] : rows.slice(rows.length - cap);
}
