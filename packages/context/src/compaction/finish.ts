/**
 * What runs after a strategy's own steps: the ledger (every strategy) and the check
 * that says when best effort is impossible (a message that may not be hidden is over the window).
 */
import type { StoredMessage } from '@threadline/protocol';
import { messagesText } from '../memory/recall';
import { toChatMessage } from '@threadline/protocol';
import {
  buildLedger,
  carriedSet,
  LEDGER_HEADER,
  LEDGER_USER_TOKENS,
  renderLedger,
  type Ledger,
  type LedgerBudget,
  type LedgerUser,
} from './ledger';
import { seqOfPos, type WorkEntry, type WorkState } from './state';
import { buildUnits, isExempt } from './units';
import type { StepContext, StepDetail } from './types';

/** The message the ledger went into last time, so a later pass rewrites instead of stacking. */
export interface LedgerSlot {
  id: string;
  /** Its content before the ledger was appended (null: the message is the ledger alone). */
  base: string | null;
  baseMeta?: Record<string, unknown> | undefined;
  /** A ledger alone: the earlier summaries folded into it, and where it sits. */
  carried?: string;
  anchor?: number;
}

/**
 * The user's messages may take 40 % of the target (at most LEDGER_USER_TOKENS, as Codex); the task
 * messages are carried whole up to half the window (a view that still holds them cannot be made
 * to fit by hiding them: best effort keeps them).
 */
function ledgerBudget(ctx: StepContext): LedgerBudget {
  const userTokens = Math.min(LEDGER_USER_TOKENS, Math.max(200, Math.floor(ctx.target * 0.4)));
  return { model: ctx.model, userTokens, taskTokens: Math.max(userTokens, Math.floor(ctx.window * 0.5)) };
}

/**
 * Whether the view still holds this user message as the user's own: its text in a user message,
 * or in `extra` (folded summaries), or its cut copy (`meta.placeholderFor`) in its place.
 */
function userShownIn(entries: readonly WorkEntry[], extra = ''): (u: LedgerUser) => boolean {
  return (u) =>
    extra.includes(u.text) ||
    entries.some(
      (e) =>
        e.msg.role === 'user' &&
        e.msg.kind === 'normal' &&
        ((u.id !== undefined && e.msg.meta?.['placeholderFor'] === u.id) ||
          (!e.fresh && (e.msg.content ?? '').includes(u.text))),
    );
}

/** The summary (or nothing) followed by the user's words, then the data ledger. */
function withLedger(base: string, r: { userBlock: string | null; dataLines: string[] }): string {
  return [base, r.userBlock ?? '', r.dataLines.length > 0 ? `${LEDGER_HEADER}\n${r.dataLines.join('\n')}` : '']
    .filter((x) => x !== '')
    .join('\n\n');
}

const isEmptySet = (l: Ledger): boolean => l.files.length === 0 && l.users.length === 0 && l.todos.length === 0;

/** Said by a ledger message whose every item the view names elsewhere (it still carries them). */
export const LEDGER_ALL_NAMED = `${LEDGER_HEADER}\nEverything it records is named elsewhere in this conversation.`;

/**
 * Whether the view (its messages' texts joined by newlines, as `messagesText`) contains a needle.
 * The ledger is checked before every stop, 4–5 times a compaction, and the view can hold a
 * megabyte of pasted diff: joining and searching it each time cost more than the strategy. A
 * needle without a newline cannot span two messages, so each message's text is searched alone
 * and the answer memoized per text (`memo`, one per compaction: hidden or rewritten messages
 * simply stop being asked about).
 */
export type ViewNamesMemo = Map<string, Map<string, boolean>>;

export function viewNames(entries: readonly WorkEntry[], memo: ViewNamesMemo, extra = ''): (needle: string) => boolean {
  let joined: string | null = null;
  return (needle) => {
    if (extra.includes(needle)) return true;
    if (needle.includes('\n')) {
      joined ??= `${messagesText(entries.map((e) => toChatMessage(e.msg)))}\n${extra}`;
      return joined.includes(needle);
    }
    for (const e of entries) {
      const text = entryText(e);
      let known = memo.get(text);
      if (!known) memo.set(text, (known = new Map()));
      let found = known.get(needle);
      if (found === undefined) known.set(needle, (found = text.includes(needle)));
      if (found) return true;
    }
    return false;
  };
}

/** One message's part of `messagesText`. */
function entryText(e: WorkEntry): string {
  const calls = e.msg.tool_calls;
  const content = e.msg.content ?? '';
  return calls?.length ? [content, ...calls.map((tc) => tc.function.arguments)].join('\n') : content;
}

/**
 * An anchor where a new user message splits no tool pair: right after a hidden message, the
 * newest first, such that the view's next message is not a tool result.
 */
function safeAnchor(state: WorkState, hidden: readonly WorkEntry[]): number {
  const seqs = [...new Set(hidden.map((e) => seqOfPos(e.pos)))].sort((a, b) => b - a);
  for (const s of seqs) if (state.entryAfter(s)?.msg.role !== 'tool') return s;
  return -1;
}

/**
 * The carried set of the hidden messages, kept for the next pass of the same compaction (keyed by
 * its `original` entries): the ledger is re-applied before every stop check, and most passes hide
 * nothing new. The set is reused only for the same messages (the same objects, in the same order),
 * the same task ids and the same budget.
 */
const carriedMemo = new WeakMap<
  readonly WorkEntry[],
  { hidden: readonly StoredMessage[]; taskIds: ReadonlySet<string>; budget: LedgerBudget; set: Ledger }
>();
export function carriedOnce(
  original: readonly WorkEntry[],
  hidden: readonly StoredMessage[],
  taskIds: ReadonlySet<string>,
  budget: LedgerBudget,
): Ledger {
  const last = carriedMemo.get(original);
  if (
    last !== undefined &&
    last.taskIds === taskIds &&
    last.budget.model === budget.model &&
    last.budget.userTokens === budget.userTokens &&
    last.budget.taskTokens === budget.taskTokens &&
    last.hidden.length === hidden.length &&
    last.hidden.every((m, i) => m === hidden[i])
  )
    return last.set;
  const set = carriedSet(buildLedger(hidden, taskIds), budget);
  carriedMemo.set(original, { hidden, taskIds, budget, set });
  return set;
}

/**
 * Appends the hidden range's carried set (ledger.ts), less what the view already says, to this
 * compaction's summary or checkpoint, and stores the whole set with it (`meta.carried`) for the
 * next compaction. A compaction that wrote none (priority_chain's P1/P2/P5, a custom plan) gets
 * one agent-only `summary` message with the ledger, into which the earlier visible summaries are
 * folded verbatim so summaries never stack. Idempotent: pass the slot it returned last time.
 */
export function applyLedger(
  state: WorkState,
  ctx: StepContext,
  original: readonly WorkEntry[],
  slot: LedgerSlot | null,
  memo: ViewNamesMemo = new Map(),
): { slot: LedgerSlot | null; detail: StepDetail } {
  // A later fold may have hidden the message the ledger went into (it then folded its text).
  if (slot && state.entries.some((e) => e.msg.id === slot!.id)) {
    if (slot.base === null) state.hide([slot.id]);
    else state.setContent(slot.id, slot.base, slot.baseMeta);
  }
  if (slot && slot.base !== null) slot = null;
  if (state.hidden.size === 0) return { slot: null, detail: { skipped: 'nothing_hidden' } };
  const carried = (): Ledger =>
    carriedOnce(
      original,
      original.filter((e) => state.hidden.has(e.msg.id)).map((e) => e.msg),
      ctx.taskIds,
      ledgerBudget(ctx),
    );
  const items = (r: { userBlock: string | null; dataLines: string[] }, set: Ledger): StepDetail => ({
    items: r.dataLines.filter((l) => l.startsWith('- ')).length + (r.userBlock ? set.users.length : 0),
    carried: set.files.length + set.users.length + set.todos.length,
  });
  const own = state.entries.filter((e) => e.fresh && (e.msg.kind === 'summary' || e.msg.kind === 'memory_snapshot'));
  const target = own.at(-1);
  if (target) {
    const set = carried();
    const r = renderLedger(set, viewNames(state.entries, memo), userShownIn(state.entries));
    const base = target.msg.content ?? '';
    const baseMeta = target.msg.meta;
    state.setContent(target.msg.id, withLedger(base, r), { ...baseMeta, carried: set });
    return { slot: { id: target.msg.id, base, baseMeta }, detail: items(r, set) };
  }
  // No summary of our own: earlier visible summaries are folded in verbatim (never stacked).
  let folded = slot?.carried ?? '';
  let anchor = slot?.anchor ?? null;
  const earlier = buildUnits(state.entries, ctx.protectedTools)
    .filter((u) => u.isCompactionInsert && (u.first.kind === 'summary' || u.first.kind === 'memory_snapshot'))
    .map((u) => u.first);
  if (isEmptySet(carried()) && folded === '') return { slot: null, detail: { items: 0 } };
  if (earlier.length > 0) {
    folded = [folded, ...earlier.map((m) => m.content ?? '')].filter((x) => x !== '').join('\n\n');
    anchor = Math.max(anchor ?? -1, ...earlier.map((m) => Number(m.meta?.['anchorSeq'] ?? m.seq)));
    state.hide(earlier.map((m) => m.id));
  }
  const set = carried();
  const r = renderLedger(set, viewNames(state.entries, memo, folded), userShownIn(state.entries, folded));
  anchor ??= safeAnchor(
    state,
    original.filter((e) => state.hidden.has(e.msg.id)),
  );
  let content = withLedger(folded, r);
  if (content === '') content = LEDGER_ALL_NAMED;
  const [made] = state.insert(anchor, [
    { role: 'user', kind: 'summary', content, meta: { ledger: true, carried: set } },
  ]);
  return {
    slot: { id: made!.id, base: null, carried: folded, anchor },
    detail: { inserted: 1, folded: earlier.length, ...items(r, set) },
  };
}

/**
 * The first message no step may hide or cut (initial context, protected tools, turn-aborted
 * markers, the latest user message) that is by itself over the window: then no compaction can
 * make the request fit, and the strategy fails without changing anything.
 */
export function oversizedKeptMessage(
  state: WorkState,
  ctx: StepContext,
): { msg: StoredMessage; tokens: number } | null {
  const units = buildUnits(state.entries, ctx.protectedTools);
  const lastUser = [...units].reverse().find((u) => u.isUser);
  for (const u of units) {
    if (!isExempt(u) && u !== lastUser) continue;
    for (const i of u.idx) {
      const e = state.entries[i]!;
      // Tool outputs can be cut, so only the calls and messages themselves count.
      if (e.msg.role === 'tool') continue;
      if (e.tokens > ctx.window) return { msg: e.msg, tokens: e.tokens };
    }
  }
  return null;
}
