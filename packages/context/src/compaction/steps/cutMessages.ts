import { headAndTail } from '../../truncate/truncate';
import { seqOfPos, type WorkState } from '../state';
import { buildUnits, type Unit } from '../units';
import type { StepContext, StepDetail } from '../types';
import { messageCutMarker } from '../../markers';
import { instructionSentences } from '../userWords';
import { patchChanges } from '../../memory/writes';

/** Before the instruction sentences a cut user message keeps from the part left out. */
export const INSTRUCTIONS_KEPT = '[…its instructions from the part left out, verbatim:]';

/** Before the files a cut diff changes in the part left out. */
export const FILES_KEPT = '[…files the part left out changes:]';

/** Share of a cut message kept at its head, where a request says what it asks. */
const HEAD_SHARE = 2 / 3;

/**
 * What a cut message keeps, in tokens: a tenth of the target (at least 240, at most 2,000), so a
 * pasted task keeps its first sentences and its end whatever the window.
 */
export function messageKeepTokens(target: number): number {
  return Math.min(2_000, Math.max(240, Math.floor(target / 10)));
}

/**
 * `cut_messages` (best effort, after the tool outputs): a user or assistant message too large to
 * carry whole — a pasted spec, a long first request — keeps its head and its tail with a marker in
 * between that says how much was left out and how to read it whole (read_tool_output by the
 * message's id), oldest first, until the view fits; each keeps as much as the target leaves room
 * for (at least `messageKeepTokens`). The message is hidden and its cut copy takes its place
 * (`meta.placeholderFor`), so the ledger knows the copy stands for it. A task message and the
 * latest user message (the request being answered, cut last) are carried whole up to half the
 * window, as the ledger carries tasks and as a paste is cut when sent; never the system prompt, a
 * compaction's own insert, or a message with tool calls.
 */
export function cutMessages(state: WorkState, ctx: StepContext): StepDetail {
  const units = buildUnits(state.entries, ctx.protectedTools);
  const lastUser = [...units].reverse().find((u) => u.isUser);
  const least = messageKeepTokens(ctx.target);
  const half = Math.floor(ctx.window / 2);
  const cuttable = (u: Unit): boolean => {
    if (u.isSystem || u.isProtected || u.isAbortMarker || u.isCompactionInsert) return false;
    const m = u.first;
    if (u.ids.length !== 1 || (m.role !== 'user' && m.role !== 'assistant') || (m.tool_calls?.length ?? 0) > 0)
      return false;
    return m.meta?.['placeholderFor'] === undefined && u.tokens > least * 1.5;
  };
  // The task and the request being answered are carried whole up to half the window.
  const whole = (u: Unit): boolean => u === lastUser || ctx.taskIds.has(u.first.id);
  const victims = units.filter((u) => u !== lastUser && cuttable(u) && (!whole(u) || u.tokens > half));
  if (lastUser && cuttable(lastUser) && lastUser.tokens > half) victims.push(lastUser);
  let cut = 0;
  for (const u of victims) {
    const excess = state.total() - ctx.target;
    if (excess <= 0) break;
    const e = state.entries[u.idx[0]!]!;
    const m = e.msg;
    // As much as the target leaves room for; the task and the request keep at most half the window.
    const keep = Math.max(least, Math.min(e.tokens - excess, whole(u) ? half : e.tokens));
    const ends = headAndTail(m.content ?? '', keep, ctx.model, HEAD_SHARE);
    if (!ends) continue;
    // The user's standing instructions in the part left out stay, verbatim (they still bind).
    const text = m.content ?? '';
    const middle =
      m.role === 'user'
        ? instructionSentences(text.slice(ends.head.length, text.length - ends.tail.length)).filter(
            (x) => !ends.head.includes(x) && !ends.tail.includes(x),
          )
        : [];
    // A pasted diff keeps the names of the files its left-out part changes.
    const files = patchChanges(text.slice(ends.head.length, text.length - ends.tail.length))
      .map((c) => c.path)
      .filter((p) => !ends.head.includes(p) && !ends.tail.includes(p));
    const kept =
      (middle.length > 0 ? `\n${INSTRUCTIONS_KEPT}\n${middle.join('\n')}` : '') +
      (files.length > 0 ? `\n${FILES_KEPT}\n${files.join('\n')}` : '');
    state.hide([m.id]);
    state.insert(seqOfPos(e.pos), [
      {
        role: m.role,
        kind: 'normal',
        ...(m.name !== undefined ? { name: m.name } : {}),
        content: `${ends.head}${kept}\n${messageCutMarker(ends.removed, m.id)}\n${ends.tail}`,
        meta: { placeholderFor: m.id },
      },
    ]);
    cut++;
  }
  return { hidden: cut, inserted: cut, cut };
}
