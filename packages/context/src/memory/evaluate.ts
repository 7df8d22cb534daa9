/**
 * Draft evaluation: every draft gets `accepted` or one deterministic rejection reason.
 * The order of checks is the order of the reasons' precedence.
 */
import type { CandidateReason, MemoryFact } from '@threadline/protocol';
import { MAX_DRAFT_CHARS, MIN_DRAFT_CHARS, MIN_TEXT_DRAFT_CHARS } from './constants';
import { FINISHED_PATTERNS, INSTRUCTION_PATTERNS, matchesAny } from './keywords';
import { isDateOnly, isPathLike, isUnhelpfulPath } from './paths';
import type { MemoryDraft } from './types';

export interface EvaluationContext {
  /** Current facts (for `artifact_marked_invalid`). */
  facts: readonly MemoryFact[];
  /** `seenKey`s already accepted in this refresh; the caller adds accepted keys as it goes. */
  seen: Set<string>;
}

/** The dedupe key: category + lowercased content. */
export function factKey(category: string, content: string): string {
  return `${category}:${content.trim().toLowerCase()}`;
}

/**
 * A draft repeats another when it has the same fact key and comes from the same message: one
 * message is one piece of evidence however often it names a path. The same key from another
 * message is accepted and adds evidence at merge.
 */
export function seenKey(draft: Pick<MemoryDraft, 'category' | 'content' | 'messageIndex'>): string {
  return `${draft.messageIndex ?? -1}|${factKey(draft.category, draft.content)}`;
}

function knownInvalid(path: string, facts: readonly MemoryFact[]): boolean {
  const key = factKey('invalid_path', path);
  return facts.some((f) => f.status === 'active' && factKey(f.category, f.content) === key);
}

export function evaluateDraft(draft: MemoryDraft, ctx: EvaluationContext): CandidateReason {
  const content = draft.content.trim();
  if (content === '') return 'empty_content';
  // Tool output and files are data: text addressing the model is refused, and nothing from a
  // tool output may become a goal (it is how an injected "your task is now…" would stick).
  if (matchesAny(INSTRUCTION_PATTERNS, content)) return 'instruction_like_content';
  if (draft.category === 'goal' && draft.origin === 'tool_output') return 'instruction_like_content';
  if (content.length > MAX_DRAFT_CHARS) return 'too_long';
  if (draft.startupNoise === true) return 'shell_startup_noise';
  if (draft.errorLine === true) return 'noise_error_line';
  if (draft.logLine === true) return 'runtime_log_noise';
  switch (draft.category) {
    case 'artifact':
      if (content.length < MIN_DRAFT_CHARS) return 'too_short';
      if (isDateOnly(content)) return 'artifact_date_only';
      if (!isPathLike(content)) return 'artifact_not_path_like';
      if (isUnhelpfulPath(content)) return 'artifact_unhelpful';
      // A path is evidence when the user named it or a tool wrote, read or listed it; the
      // assistant's prose alone proves nothing.
      if (draft.origin === 'assistant') return 'artifact_unconfirmed';
      // A write or a successful existence probe is fresher evidence than the old failure: the
      // path exists now (merge then retires the invalid fact).
      if (draft.written !== true && draft.validatedBy === undefined && knownInvalid(content, ctx.facts))
        return 'artifact_marked_invalid';
      break;
    case 'invalid_path':
      if (isDateOnly(content) || !isPathLike(content)) return 'invalid_path_not_path_like';
      break;
    case 'verified_action':
      if (content.length < MIN_TEXT_DRAFT_CHARS) return 'too_short';
      if (draft.confirmed !== true) return 'verified_action_unconfirmed';
      break;
    case 'open_item':
      if (content.length < MIN_TEXT_DRAFT_CHARS) return 'too_short';
      if (draft.origin === 'tool_output') return 'open_item_unconfirmed';
      if (matchesAny(FINISHED_PATTERNS, content)) return 'open_item_finished';
      break;
    case 'goal':
    case 'note':
      if (content.length < MIN_TEXT_DRAFT_CHARS) return 'too_short';
      // Goals are what the user is after: an assistant's sentence that reports a state is none.
      if (draft.category === 'goal' && draft.status === true) return 'goal_status_sentence';
      break;
  }
  if (ctx.seen.has(seenKey(draft))) return 'duplicate';
  return 'accepted';
}
